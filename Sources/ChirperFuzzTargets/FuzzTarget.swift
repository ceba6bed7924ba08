/// One thing the fuzzer feeds: a reader of bytes nobody checked. Every target must return normally for every
/// input; a crash, a trap or a sanitizer report is a finding.
public struct FuzzTarget: Sendable {
    public let name: String
    /// What it reads, for `make fuzz`'s summary.
    public let summary: String
    public let run: @Sendable (UnsafeBufferPointer<UInt8>) -> Void

    /// Every target, in the order `make fuzz` runs them.
    public static let all: [FuzzTarget] = textTargets + audioTargets + stateTargets + fileHeaderTargets

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// Runs `bytes` through the target.
    public func callAsFunction(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer(run)
    }
}
