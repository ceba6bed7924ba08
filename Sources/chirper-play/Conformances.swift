import ChirperAudio
import ChirperREPL

// The audio side serves the REPL through its protocols; the REPL does not know the audio module.
extension Player: PlaybackControl {}

extension SonogramReader: SonogramSource {}

extension RecordingSaver: RecordingSaving {}
