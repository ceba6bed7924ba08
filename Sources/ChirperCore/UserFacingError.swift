/// An error whose message is fit to show the user as the reason a track failed: one line, with what to do.
public protocol UserFacingError: Error {
    var userMessage: String { get }
}

/// Turns any error into the one line shown in `failed(reason)`.
public func userMessage(for error: any Error) -> String {
    if let error = error as? any UserFacingError {
        return error.userMessage
    }
    return "playback error: \(String(describing: error))"
}
