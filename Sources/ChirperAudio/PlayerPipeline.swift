import AsyncHTTPClient
import ChirperCore
import ChirperHTTP
import NIOConcurrencyHelpers

/// The player's pipeline task: one track's feed from the source to the sink.
extension Player {
    // MARK: - The pipeline

    func runPipeline(_ pipeline: Pipeline, item: PlayItem) async -> PipelineOutcome {
        do {
            let source = try sources.source(for: item.location)
            send { $0.sourceOpened(canResume: source.canResume, ticket: pipeline.ticket) }
            return try await withThrowingTaskGroup(of: PipelineOutcome?.self) { group in
                // The feed first: its child task is scheduled first, and the request goes out sooner.
                group.addTask {
                    // The feed belongs to this task alone.
                    let ticket = pipeline.ticket
                    let feed = TrackFeed(
                        ticket: ticket, source: source, channel: item.channel, pipeline: pipeline,
                        configuration: self.configuration, backoffClock: self.clocks.backoff, hearing: self.hearing,
                        step: { event in self.step(event, ticket: ticket) },
                        format: { self.locked.withLockedValue { $0.machine.track(of: ticket)?.format } },
                        openOutput: { format, number, continuing in
                            try await self.openOutput(
                                format, item: item, pipeline: pipeline, segment: number, continuing: continuing)
                        })
                    return try await feed.run()
                }
                // The sound server's connection is awaited beside the feed, not before it: in a cold start the
                // request for the audio goes out while libpulse loads and connects, instead of after. A sink that
                // cannot be had (no sound server) still ends the pipeline at once, with the feed cancelled.
                group.addTask {
                    try await self.sink.prepare()
                    try await self.reportProgress(pipeline)
                    return nil
                }
                let outcome = try await group.next() ?? nil
                group.cancelAll()
                if let reason = pipeline.failure { return .failed(reason) }
                return outcome ?? .ended
            }
        } catch {
            if let reason = pipeline.failure { return .failed(reason) }
            if pipeline.isStopped { return .ended }
            return .failed(
                error is CancellationError ? "playback was interrupted; play again" : userMessage(for: error))
        }
    }

    /// Hands `event` of the track of `ticket` to its machine, inside the playback machine, under the lock; runs
    /// what its reports lead to, and returns the driver's actions.
    func step(_ event: TrackMachine.Event, ticket: PlaybackTicket) -> [TrackMachine.Action] {
        var driver: [TrackMachine.Action] = []
        perform { machine in
            let step = machine.trackEvent(event, ticket: ticket)
            driver = step.driver
            return step.actions
        }
        return driver
    }

    /// A sink output for one segment of `item`; its underruns are reported for that segment.
    private func openOutput(
        _ format: PCMFormat, item: PlayItem, pipeline: Pipeline, segment: Int, continuing: Bool
    ) async throws -> any AudioOutput {
        let ticket = pipeline.ticket
        return try await sink.openOutput(
            format: format,
            label: item.label,
            bufferSeconds: configuration.policy.sinkBuffer,
            continuing: continuing,
            onUnderrun: { [weak self] in
                // Called on the sound server's thread: hop off it before touching the machine. The position
                // goes first, so the machine knows what is really left in the sink.
                Task {
                    guard let self else { return }
                    if let played = pipeline.output.played {
                        self.send {
                            $0.progress(playedSeconds: played.seconds, ticket: ticket, segment: played.segment)
                        }
                    }
                    self.send { $0.underrun(ticket: ticket, segment: segment) }
                }
            }
        )
    }

    /// Reads the sink's position every `progressInterval` (also while draining, when nothing is written).
    private func reportProgress(_ pipeline: Pipeline) async throws {
        let ticket = pipeline.ticket
        while true {
            try await clocks.progress.sleep(for: configuration.progressInterval)
            if let played = pipeline.output.played {
                send { $0.progress(playedSeconds: played.seconds, ticket: ticket, segment: played.segment) }
            }
        }
    }
}

extension ByteSources {
    /// HTTP(S) through AsyncHTTPClient (only http and https URLs), local paths from the file system.
    public static func live(httpClient: HTTPClient = .shared) -> ByteSources {
        live(routes: HTTPRoutes(client: httpClient))
    }

    /// HTTP(S) through the client `routes` picks for each host (its proxy, or direct), local paths from the
    /// file system.
    public static func live(routes: HTTPRoutes) -> ByteSources {
        ByteSources { location in
            switch location {
            case .remote(let url): try HTTPByteSource(url: url, routes: routes)
            case .local(let path): FileByteSource(path: path)
            }
        }
    }
}
