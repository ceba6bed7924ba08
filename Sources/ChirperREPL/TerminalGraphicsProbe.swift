import ChirperCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Asks the terminal, once at start-up and before line editing begins, which graphics it can draw: the
/// queries of `TerminalGraphicsSupport.query`, answered within `timeout` or not at all.
enum TerminalGraphicsProbe {
    static func ask(
        original: termios, timeout: Duration = .milliseconds(100), clock: some Clock<Duration> = ContinuousClock()
    ) -> TerminalGraphicsSupport {
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        var restore = original
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return .none }
        defer { _ = tcsetattr(STDIN_FILENO, TCSANOW, &restore) }
        let query = Array(TerminalGraphicsSupport.query.utf8)
        guard query.withUnsafeBytes({ write(STDOUT_FILENO, $0.baseAddress, $0.count) }) == query.count else {
            return .none
        }
        let deadline = clock.now.advanced(by: timeout)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while clock.now < deadline, bytes.count < 4096 {
            let left = clock.now.duration(to: deadline)
            let milliseconds = max(
                1, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, milliseconds) > 0 else { continue }
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            if TerminalGraphicsSupport.parse(bytes).complete { break }
        }
        var support = TerminalGraphicsSupport.parse(bytes).support
        // The window size in pixels, where the terminal reports it, is the surer cell size.
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0, size.ws_xpixel > 0,
            size.ws_ypixel > 0
        {
            support.cellWidth = Int(size.ws_xpixel) / Int(size.ws_col)
            support.cellHeight = Int(size.ws_ypixel) / Int(size.ws_row)
        }
        return support
    }
}
