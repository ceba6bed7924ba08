import ChirperCore
import NIOConcurrencyHelpers
import ChirperSystem

/// Hands what the tracks decode to those who listen (the live strip's painter), each through a channel of its
/// own: the sound never waits for a picture, and a recording is fetched and decoded once however it is drawn.
final class HeardAudioRelay: Sendable {
    private let listeners = NIOLockedValueBox<[Channel<HeardAudio, Never>]>([])

    /// A new listener's channel: every piece decoded from now on, in order, until it is cancelled.
    func listen() -> Channel<HeardAudio, Never> {
        let channel = Channel<HeardAudio, Never>()
        listeners.withLockedValue { $0.append(channel) }
        return channel
    }

    /// Hands `piece` to every listener without waiting; a listener gone (its channel cancelled) is dropped.
    func hand(_ piece: HeardAudio) {
        let now = listeners.withLockedValue { $0 }
        let gone = now.filter { !$0.post(piece) }
        guard !gone.isEmpty else { return }
        listeners.withLockedValue { $0.removeAll { channel in gone.contains { $0 === channel } } }
    }

    /// The player is shut down: every listener's channel ends.
    func finish() {
        let now = listeners.withLockedValue { listeners in
            defer { listeners = [] }
            return listeners
        }
        now.forEach { $0.finish() }
    }
}

extension Player {
    /// What every track decodes from now on (before the speed stage, at its place in the recording), in order,
    /// until the channel is cancelled or the player shut down. The player never waits for it to be read.
    public func heardAudio() -> Channel<HeardAudio, Never> {
        hearing.listen()
    }
}
