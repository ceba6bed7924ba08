import FoundationEssentials

/// The attribution xeno-canto asks for when a recording is used: recordist, XC number, page URL, licence
/// (../shared/xeno-canto/SOURCES.md: "Attribution: recordist, XC number, https://xeno-canto.org/<id>,
/// licence"), and a warning when the licence restricts what may be done with the sound.
///
/// Every field comes from the API, so every field is sanitised here: the lines are ready to print.
public struct Citation: Sendable, Hashable {
    /// e.g. `Jonathan Jongsma, XC254462, https://xeno-canto.org/254462, CC BY-NC-SA 4.0`.
    public var line: String
    /// Present when the licence is NoDerivatives or NonCommercial (or unknown), e.g.
    /// `licence CC BY-NC-ND 4.0: no commercial use, no derivatives (no edited or remixed versions)`.
    public var warning: String?

    public init(line: String, warning: String?) {
        self.line = line
        self.warning = warning
    }

    /// The citation of one recording.
    public init(_ recording: Recording) {
        if let file = recording.ownFile {
            // Nothing of xeno-canto's applies to a file of one's own: no licence, no number, no page.
            line =
                "\(TerminalText.sanitize(file.name)) is your own recording (\(TerminalText.sanitize(file.path))),"
                + " not an xeno-canto one: no licence or attribution applies; cite it as you choose"
            warning = nil
            return
        }
        let recordist = TerminalText.sanitize(recording.recordist)
        let label = TerminalText.sanitize(recording.label)
        let licence = TerminalText.sanitize(recording.licenceName)
        // The page URL is built from the id when it is a xeno-canto number, so a missing or odd `url` field
        // cannot change where the citation points.
        let page: String
        if recording.label.hasPrefix("XC") {
            page = "https://xeno-canto.org/\(recording.id)"
        } else {
            page = TerminalText.sanitize(recording.pageURL)
        }
        let parts = [
            recordist.isEmpty ? "unknown recordist" : recordist,
            label,
            page,
            licence.isEmpty ? "licence not given" : licence,
        ].filter { !$0.isEmpty }
        self.line = parts.joined(separator: ", ")
        self.warning = Citation.warning(licenceURL: recording.licenceURL, name: licence)
    }

    /// The restrictions of a Creative Commons licence URL, in words, or nil when it has none worth warning
    /// about (CC0, BY, BY-SA).
    static func warning(licenceURL: String, name: String) -> String? {
        let terms = LicenceTerms(url: licenceURL)
        guard terms.known else {
            return "licence \(name.isEmpty ? "not given" : name): check the recording's page before reusing it"
        }
        var limits: [String] = []
        if terms.nonCommercial { limits.append("no commercial use") }
        if terms.noDerivatives { limits.append("no derivatives (no edited or remixed versions)") }
        guard !limits.isEmpty else { return nil }
        return "licence \(name): \(limits.joined(separator: ", "))"
    }
}

/// What a Creative Commons licence URL allows, read from its path (`/licenses/by-nc-nd/4.0/`).
public struct LicenceTerms: Sendable, Hashable {
    /// False when the URL is not a Creative Commons licence this code understands.
    public var known: Bool
    public var nonCommercial: Bool
    public var noDerivatives: Bool

    public init(url: String) {
        let lower = url.lowercased()
        guard let range = lower.firstRange(of: "creativecommons.org/") else {
            self.init(known: false, nonCommercial: false, noDerivatives: false)
            return
        }
        let parts = lower[range.upperBound...].split(separator: "/")
        if parts.first == "publicdomain" {
            self.init(known: true, nonCommercial: false, noDerivatives: false)
            return
        }
        guard parts.first == "licenses", parts.count >= 2 else {
            self.init(known: false, nonCommercial: false, noDerivatives: false)
            return
        }
        let elements = parts[1].split(separator: "-")
        self.init(known: true, nonCommercial: elements.contains("nc"), noDerivatives: elements.contains("nd"))
    }

    init(known: Bool, nonCommercial: Bool, noDerivatives: Bool) {
        self.known = known
        self.nonCommercial = nonCommercial
        self.noDerivatives = noDerivatives
    }
}
