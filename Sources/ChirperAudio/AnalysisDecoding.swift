import ChirperCore
import ChirperSystem

/// Decodes a recording without playing it, for analysis (the sonogram, measurements): the same `ByteSources`
/// and `StreamDecoder` the player uses, mixed to mono (an analysis is of the sum, and it halves MP3's
/// synthesis), in two stages on two cores: one task reads and decodes, the caller's analyses; a few batches
/// between them bound the memory.
struct AnalysisDecoding: Sendable {
    let sources: ByteSources

    /// Hands each decoded batch to `take`, in order, until it returns false (it has what it needs) or the
    /// recording ends. Throws the source's, the decoder's or `take`'s error, or `CancellationError`.
    func decode(_ item: PlayItem, take: ([DecodedAudio]) throws -> Bool) async throws {
        let source = try sources.source(for: item.location)
        let batches = Channel(capacity: 8, of: [DecodedAudio].self, failure: (any Error).self)
        var enough = false
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    let reader = try await source.open(from: 0)
                    let decoder = StreamDecoder(expectedLength: reader.totalLength, mixToMono: true)
                    while let chunk = try await reader.read() {
                        try Task.checkCancellation()
                        try await batches.sendUnlessEmpty(try decoder.feed(chunk))
                    }
                    try await batches.sendUnlessEmpty(try decoder.finish())
                    batches.finish()
                } catch {
                    batches.finish(throwing: error)
                    throw error
                }
            }
            do {
                while let batch = try await batches.next() {
                    guard try take(batch) else {
                        // The rest of the recording is not needed.
                        enough = true
                        batches.cancel()
                        group.cancelAll()
                        break
                    }
                }
            } catch {
                // The decoding task may be waiting for room: let it go before the group waits for it.
                batches.cancel()
                throw error
            }
            do {
                try await group.waitForAll()
            } catch  where enough {
                // Stopped on purpose.
            }
        }
    }
}

extension Channel where Element == [DecodedAudio] {
    /// Sends a batch that holds anything (a decoder step may give nothing).
    fileprivate func sendUnlessEmpty(_ batch: [DecodedAudio]) async throws {
        if !batch.isEmpty { try await send(batch) }
    }
}
