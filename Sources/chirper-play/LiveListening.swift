import ChirperIdentify
import ChirperREPL

/// `identify on` hears through BirdNET's listener (ChirperIdentify), which the REPL knows by its protocol.
extension BirdNETIdentifier: LiveSpeciesListening {}
