import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate authority made for one test run, and a server certificate it signed for `127.0.0.1` and
/// `localhost`: the loopback server speaks HTTPS with it, and a client trusts it only when told to (the CA's
/// PEM file given as `--ca-file` or `SSL_CERT_FILE`), as a user behind a TLS-inspecting proxy would.
public struct LoopbackTLS: Sendable {
    /// The CA's certificate in PEM.
    public let caPEM: String
    /// The server's certificate chain (its certificate, then the CA's) and key, for NIOSSL.
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey

    /// A fresh CA and a server certificate for `names` (DNS names) and `addresses` (IPv4 addresses), valid
    /// from an hour ago for a day.
    public static func make(
        names: [String] = ["localhost"],
        addresses: [[UInt8]] = [[127, 0, 0, 1]],
        commonName: String = "chirper-play loopback test CA"
    ) throws -> LoopbackTLS {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName(commonName) }
        let ca = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(caKey.publicKey),
            notValidBefore: now - 3600,
            notValidAfter: now + 86400,
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )
        let serverKey = P256.Signing.PrivateKey()
        let alternatives =
            names.map { GeneralName.dnsName($0) }
            + addresses.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) }
        let server = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(serverKey.publicKey),
            notValidBefore: now - 3600,
            notValidAfter: now + 86400,
            issuer: caName,
            subject: try DistinguishedName { CommonName(names.first ?? "localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternatives)
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )
        func der(_ certificate: Certificate) throws -> [UInt8] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
        return LoopbackTLS(
            caPEM: try ca.serializeAsPEM().pemString,
            chain: [
                try NIOSSLCertificate(bytes: try der(server), format: .der),
                try NIOSSLCertificate(bytes: try der(ca), format: .der),
            ],
            key: try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
        )
    }

    /// Writes the CA's PEM to a new file in the temporary folder and returns its path (for `--ca-file` and
    /// `SSL_CERT_FILE`).
    public func writeCA() throws -> String {
        let path = NSTemporaryDirectory() + "chirper-test-ca-\(UUID().uuidString).pem"
        try caPEM.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func serverContext() throws -> NIOSSLContext {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        return try NIOSSLContext(configuration: configuration)
    }
}

/// How a test's requests travel: plain HTTP on loopback, or HTTPS (as xeno-canto serves the API and every
/// recording) with one CA made for the test run, which the client under test trusts the way a user trusts a
/// proxy's CA: its PEM file given as `--ca-file`.
public enum Transport: String, CaseIterable, Sendable, CustomStringConvertible {
    case http, https

    public var description: String { rawValue.uppercased() }

    /// The server's certificate, for `LoopbackServer.start(tls:)`; nil over plain HTTP.
    public var tls: LoopbackTLS? { self == .https ? Self.authority.tls : nil }

    /// The run's CA as a PEM file.
    public static var caFile: String { authority.caFile }

    private static let authority: (tls: LoopbackTLS, caFile: String) = {
        do {
            let tls = try LoopbackTLS.make()
            return (tls, try tls.writeCA())
        } catch {
            fatalError("could not make the test CA: \(error)")
        }
    }()
}
