import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file could not be read or written, in the C library's words ("No such file or directory",
/// "Permission denied"), for the one-line messages that name the file. FoundationEssentials' errors carry the
/// system's error underneath; Foundation's localized descriptions are not in it.
public enum FileErrorText {
    public static func reason(_ error: any Error) -> String {
        if let error = error as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
        if let error = error as? CocoaError {
            if let underlying = error.underlying as? POSIXError {
                return String(cString: strerror(underlying.code.rawValue))
            }
            switch error.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
            case .fileWriteOutOfSpace: return "no space left on the device"
            case .fileReadCorruptFile, .fileReadInapplicableStringEncoding: return "its contents cannot be read"
            default: return "file error \(error.code.rawValue)"
            }
        }
        return "\(error)"
    }
}
