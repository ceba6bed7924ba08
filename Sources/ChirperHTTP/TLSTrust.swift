import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// Which certificate authorities HTTPS connections trust: the system's (`/etc/ssl/certs`), or what
/// `SSL_CERT_FILE` / `SSL_CERT_DIR` name instead (as OpenSSL, curl, git and Python read them), plus any
/// `--ca-file` given on top (a TLS-inspecting proxy's CA, for example).
public struct TLSTrust: Sendable, Equatable {
    /// The trust store in force before `--ca-file`.
    public enum Base: Sendable, Equatable {
        /// The system's certificates.
        case system
        /// `SSL_CERT_FILE` and/or `SSL_CERT_DIR`, in place of the system's.
        case environment(file: String?, directory: String?)
    }

    public var base: Base
    /// CA files trusted on top of the base (`--ca-file`), each checked to hold at least one certificate.
    public var caFiles: [String]

    /// The system's certificates only.
    public static let system = TLSTrust(base: .system, caFiles: [])

    /// Trusts `base` and `caFiles` as given (`resolve` checks them first).
    public init(base: Base, caFiles: [String]) {
        self.base = base
        self.caFiles = caFiles
    }

    /// The trust `environment` and `caFiles` ask for. A CA file that cannot be read or holds no certificate
    /// is an error (the user asked for it); a variable naming something missing is a notice, and the
    /// system's certificates stay in force.
    public static func resolve(
        environment: [String: String], caFiles: [String]
    ) throws(TrustError) -> (trust: TLSTrust, notices: [String]) {
        var notices: [String] = []
        func usable(_ name: String, directory: Bool) -> String? {
            guard let path = environment[name], !path.isEmpty else { return nil }
            switch FileKind.of(path) {
            case .directory where directory, .file where !directory:
                return path
            case .missing:
                notices.append("\(name)=\(path) does not exist; ignored (the system's certificates are used)")
            default:
                notices.append(
                    "\(name)=\(path) is not a \(directory ? "folder" : "file"); ignored (the system's certificates are used)"
                )
            }
            return nil
        }
        let file = usable("SSL_CERT_FILE", directory: false)
        let directory = usable("SSL_CERT_DIR", directory: true)
        for path in caFiles { try Self.check(caFile: path) }
        let base: Base = file == nil && directory == nil ? .system : .environment(file: file, directory: directory)
        return (TLSTrust(base: base, caFiles: caFiles), notices)
    }

    /// Throws unless `path` is a readable PEM file with at least one certificate.
    static func check(caFile path: String) throws(TrustError) {
        guard FileKind.of(path) == .file else { throw TrustError(path: path, reason: "no such file") }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw TrustError(path: path, reason: "no PEM certificate could be read from it")
        }
        if certificates.isEmpty { throw TrustError(path: path, reason: "it holds no PEM certificate") }
    }

    /// NIOSSL's client configuration for this trust (certificates are verified, host names checked).
    ///
    /// A folder must be NIOSSL's primary trust root: among the additional roots, a path is read as one PEM file,
    /// which a folder is not. So with both variables set, `SSL_CERT_DIR` is the root and `SSL_CERT_FILE` an
    /// additional one.
    public var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        var additional: [NIOSSLAdditionalTrustRoots] = []
        switch base {
        case .system, .environment(nil, nil):
            configuration.trustRoots = .default
        case .environment(let file?, nil):
            configuration.trustRoots = .file(file)
        case .environment(let file, let directory?):
            configuration.trustRoots = .file(directory)
            if let file { additional.append(.file(file)) }
        }
        configuration.additionalTrustRoots = additional + caFiles.map { .file($0) }
        return configuration
    }
}

/// A `--ca-file` that cannot be used.
public struct TrustError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "--ca-file \(path): \(reason); give a PEM file of CA certificates" }
}

/// What is at a path (without following the question further than `stat`).
enum FileKind: Equatable {
    case file, directory, missing, other

    static func of(_ path: String) -> FileKind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }
}
