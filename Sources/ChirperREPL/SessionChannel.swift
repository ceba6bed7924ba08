import ChirperCore

/// `channel [k]`: a file of more than two channels (a microphone array, a recorder's four inputs) is played one
/// channel at a time, the first unless another is chosen; the status line says which.
extension SessionMachine {
    /// What plays as far as the session knows: the rendered state's item and position once it has caught up with
    /// the last track started; before (a script's next line runs before the track's first state), that track from
    /// its start, its channel not known yet.
    private var channelTarget: (recording: Recording, item: PlayItem?, position: Double)? {
        guard let playing, !playing.masked else { return nil }
        if playback.ticket == playing.ticket {
            guard let progress = playback.progress else { return nil }
            return (playing.recording, progress.item, progress.position)
        }
        return (playing.recording, nil, 0)
    }

    /// The channels of what plays, and the one played: nil when nothing plays or its channels are not known.
    var playedChannels: ChannelChoice? {
        guard let target = channelTarget, let item = target.item,
            let channels = target.recording.ownFile?.header.channels
        else { return nil }
        return try? ChannelChoice.choose(requested: item.channel, fileChannels: channels)
    }

    mutating func chooseChannel(_ requested: Int?) {
        guard let (recording, item, position) = channelTarget else {
            refuse("nothing plays: play a file of several channels first, e.g. play 1, then channel 2")
            return
        }
        guard let channels = recording.ownFile?.header.channels, let base = item ?? recording.playItem else {
            refuse("\(recording.label) has no channels to choose: its file's layout is not known")
            return
        }
        guard let requested else {
            guard let choice = playedChannels else {
                refuse("\(recording.label) is starting: channel says which channel plays once it plays")
                return
            }
            say([presenter.channel(choice, of: recording)])
            return
        }
        let choice = playedChannels ?? ChannelChoice(fileChannels: channels, played: nil)
        guard choice.fileChannels > 2 else {
            refuse("\(recording.label) is \(choice): both channels always play")
            return
        }
        guard requested <= choice.fileChannels else {
            refuse(ChannelChoiceError(requested: requested, fileChannels: choice.fileChannels).userMessage)
            return
        }
        guard requested != choice.played else {
            say([presenter.channel(choice, of: recording)])
            return
        }
        // The same recording from where it is, with the other channel: a new track whose first sound is there.
        var chosen = base
        chosen.channel = requested
        ask(.play(chosen, recording, forQueue: false))
        if position > 0 { ask(.control(.seek(.absolute(position)))) }
    }
}
