@testable import ChirperREPL

/// Which quiz request a session's action is, for the quiz scenarios that look for one among a step's actions.
extension SessionMachine.Action {
    var isQuizPictures: Bool { if case .drawQuizPictures = self { true } else { false } }
    var isBuildQuizDeck: Bool { if case .buildQuizDeck = self { true } else { false } }
}
