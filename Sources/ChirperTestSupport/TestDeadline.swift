/// How long a test's wait on a player, a stream or a child process's output may take before the test fails: a
/// bound for one that never ends, not a measure. `make test`'s first phase runs every suite at once, so on a
/// two-core machine a wait that is only slow (fixtures decoded in a debug build beside the other suites) must
/// still pass.
public let testDeadline: Duration = .seconds(120)
