import ChirperCore

/// One of sono mode's pictures to compute. The three are drawn over the same span: a picture shorter or
/// narrower than the others would tell its recording apart, whatever it shows.
struct QuizPicture: Sendable, Hashable {
    var item: PlayItem
    /// Its window starts where its sound is heard and asks for `longest` seconds.
    var shape: SonogramShape

    /// The most a picture shows, in seconds.
    static let longest = 10.0
    /// Pictures whose lengths differ by less than this are drawn over the same span.
    static let sameSpan = 1e-6

    /// The span every picture is drawn over: what the shortest has from its start, at most `longest`.
    static func commonSpan(_ durations: [Double]) -> Double {
        min(longest, durations.min() ?? longest)
    }

    /// The common span of `pictures` from what is known of their recordings' lengths (the catalogue's), nil
    /// while one is unknown.
    static func commonSpan(of pictures: [QuizPicture]) -> Double? {
        var lengths: [Double] = []
        for picture in pictures {
            guard let duration = picture.item.expectedDuration else { return nil }
            lengths.append(duration - (picture.shape.window?.start ?? 0))
        }
        return commonSpan(lengths)
    }

    /// The picture over `span` seconds from its start.
    func over(_ span: Double) -> QuizPicture {
        var picture = self
        let start = shape.window?.start ?? 0
        picture.shape.window = TimeSpan(start: start, end: start + span)
        return picture
    }

    /// Draws `pictures`, each once, as they are asked for (the quiz machine decides their span).
    static func draw(
        _ pictures: [QuizPicture], with sonogram: (QuizPicture) async throws -> Sonogram
    ) async throws -> [Sonogram] {
        var drawn: [Sonogram] = []
        for picture in pictures { drawn.append(try await sonogram(picture)) }
        return drawn
    }
}

/// Sono mode's pictures being drawn for the open question: whether their span was decided before they were
/// asked, and those drawn over it so far (nil: being drawn).
struct PicturesAsked: Sendable, Hashable {
    var id: Int
    var pictures: [QuizPicture]
    var spanDecided: Bool
    var drawn: [Sonogram?]
}

/// What the session does with sono mode's pictures when they arrive.
enum PicturesArrival: Sendable, Hashable {
    /// They are not the last asked for: dropped.
    case dropped
    /// All drawn over one span: shown.
    case show([Sonogram])
    /// Some are longer than the shortest: these are drawn again over its span.
    case redraw([QuizPicture])
    /// One has no audio from where it starts.
    case noAudio
    /// None was drawn: the work says why.
    case failed
}
