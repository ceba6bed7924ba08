#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` on a new thread of its own (detached: nobody joins it); `name` says which in the message if it
/// cannot be started. For work that blocks for long (a pipe read, the
/// terminal's line editor, the D-Bus loop) or holds a thread for milliseconds without awaiting. Foundation's
/// `Thread` is not in FoundationEssentials, which the program is built on (Foundation and ICU cost every
/// start). `stackSize` nil keeps the system's default (address space, touched as used).
public func startDetachedThread(
    name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
) {
    final class Start: Sendable {
        let body: @Sendable () -> Void
        init(body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    if let stackSize { pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN))) }
    let start = Unmanaged.passRetained(Start(body: body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, &attributes,
        { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            start.body()
            return nil
        }, start)
    // As Foundation's Thread does: a process that cannot start a thread cannot go on.
    precondition(status == 0, "cannot start the \(name) thread (error \(status))")
}
