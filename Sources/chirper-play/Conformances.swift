import ChirperAudio
import ChirperCatalog
import ChirperCore
import ChirperDesktop
import ChirperGraphics
import ChirperREPL
import ChirperStore
import FoundationEssentials
import Synchronization

// The audio side serves the REPL through its protocols; the REPL does not know the audio module.
extension Player: PlaybackControl {}

extension SonogramReader: SonogramSource {}

extension RecordingSaver: RecordingSaving {}

extension MeasurementReader: MeasurementSource {}

/// Pictures at pixel resolution through the graphics libraries (libchafa, libpng).
struct GraphicsPictures: PictureWriting {
    func escape(for image: RasterImage, on canvas: PixelCanvas) throws -> String {
        try PixelEncoder.encode(
            image, as: canvas.pixelProtocol, cellWidth: canvas.cellWidth, cellHeight: canvas.cellHeight)
    }

    func writePNG(_ image: RasterImage, to path: String) throws {
        try PNGFile.write(image, to: path)
    }
}

extension QuizDecks: QuizDeckSource {}

extension QuizStore: QuizKeeping {}

/// The quiz store, opened at its first use (a session that never quizzes never opens SQLite); one that cannot
/// be opened says why at every call.
final class LazyQuizStore: QuizKeeping {
    private let path: String
    private let opened = Mutex<(any QuizKeeping)?>(nil)

    init(path: String) { self.path = path }

    private var store: any QuizKeeping {
        opened.withLock { opened in
            if let opened { return opened }
            let store: any QuizKeeping
            do {
                store = try QuizStore(path: path)
            } catch {
                store = UnavailableQuizStore(reason: ChirperCore.userMessage(for: error))
            }
            opened = store
            return store
        }
    }

    func load(_ deck: QuizDeck, at now: Date) throws -> QuizProgress { try store.load(deck, at: now) }
    func keep(_ answer: QuizAnswerRecord, at now: Date) throws -> CardMemory { try store.keep(answer, at: now) }
    func stats(at now: Date) throws -> QuizStats { try store.stats(at: now) }
    func exportRows() throws -> [[String]] { try store.exportRows() }
}
