import ChirperCore

/// One of sono mode's pictures to compute. The three are drawn over the same span: a picture shorter or
/// narrower than the others would tell its recording apart, whatever it shows.
struct QuizPicture: Sendable, Hashable {
    var item: PlayItem
    /// Its window starts where its sound is heard and asks for `longest` seconds.
    var shape: SonogramShape

    /// The most a picture shows, in seconds.
    static let longest = 10.0

    /// The span every picture is drawn over: what the shortest has from its start (the audio's own length, not
    /// the catalog's rounded one), at most `longest`.
    static func commonSpan(_ durations: [Double]) -> Double {
        min(longest, durations.min() ?? longest)
    }

    /// A quick picture, only to learn how much audio its window holds.
    var probe: QuizPicture {
        var probe = self
        probe.shape.columns = 8
        probe.shape.rows = 4
        return probe
    }

    /// The picture over `span` seconds from its start.
    func over(_ span: Double) -> QuizPicture {
        var picture = self
        let start = shape.window?.start ?? 0
        picture.shape.window = TimeSpan(start: start, end: start + span)
        return picture
    }

    /// Draws `pictures` over one span: each probed for the audio its window holds, then drawn over the
    /// shortest's.
    static func draw(
        _ pictures: [QuizPicture], with sonogram: (QuizPicture) async throws -> Sonogram
    ) async throws -> [Sonogram] {
        var durations: [Double] = []
        for picture in pictures { durations.append(try await sonogram(picture.probe).duration) }
        let span = commonSpan(durations)
        var drawn: [Sonogram] = []
        for picture in pictures { drawn.append(try await sonogram(picture.over(span))) }
        return drawn
    }
}
