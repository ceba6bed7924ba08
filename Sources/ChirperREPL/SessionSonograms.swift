import ChirperCatalog
import ChirperCore

extension SessionMachine {
    /// `sono`, the live strip and `graphics` as a child of the session: the still sonogram being drawn, the
    /// strip's machine and how pictures are drawn. The session finds the recording asked for (a row, or what
    /// plays) and passes the rendered playback state in the events that need it.
    struct Sonograms: Sendable {
        enum State: Sendable, Hashable {
            /// No `sono` is being drawn.
            case idle
            /// This `sono` is being computed.
            case drawing(Job)
        }

        /// The `sono` being computed, and how its picture is shown.
        struct Job: Sendable, Hashable {
            var id: Int
            /// Nil: the recording playing.
            var row: Int?
            var label: String
            var title: String?
            var display: Display
            /// Also written here as a PNG.
            var png: String?
            var boxes: [SonogramRaster.Box]
            /// The last identification's segments of this recording, drawn over the picture.
            var heard: [SegmentDetections] = []
            /// An open quiz question's: its times are shown from 0, as heard (its place in the recording could
            /// tell it).
            var fromZero = false
        }

        /// Where a sonogram goes: text (half-blocks, shades, `sono:` lines) of this many cells, or pixels.
        enum Display: Sendable, Hashable {
            case text(columns: Int, rows: Int)
            case pixels(PixelCanvas, columns: Int, rows: Int)
        }

        enum Event: Sendable, Hashable {
            /// `sono [n] [band] [window]` of `recording`'s audio `item`; `window`: the one asked for, else the
            /// loop of what plays; `masked`: an open quiz question's (its length and place are not said); `heard`:
            /// the last identification's segments of that recording.
            case draw(
                SonogramDraw, Recording, PlayItem, window: TimeSpan?, masked: Bool, heard: [SegmentDetections] = [])
            /// The sonogram `id` ended.
            case drawn(id: Int, Result<Sonogram, WorkFailure>)
            /// Ctrl-C: the sonogram being drawn is stopped.
            case interrupt
            /// `sono on|off`, given what plays now.
            case strip(on: Bool, lines: Int?, band: FrequencyBand?, PlaybackState)
            /// The live strip's picture of play request `ticket` (or why there is none); `playback`: now.
            case stripPicture(PlaybackTicket, Result<Sonogram, WorkFailure>, PlaybackState)
            /// The rendered playback state changed.
            case playback(PlaybackState)
            /// `graphics [mode]`, given what plays now.
            case graphics(GraphicsMode?, PlaybackState)
        }

        enum Action: Sendable, Hashable {
            case print([String])
            case refuse(String)
            /// A script's next line waits for the sonogram.
            case hold
            /// The sonogram is shown (or failed): a line waiting for it runs.
            case done
            case request(Request)
            case draw(id: Int, PlayItem, SonogramShape)
            case cancel
            case showPicture([String], RasterImage, PixelCanvas)
            case listenStrip
            case computeStrip(PlayItem, PlaybackTicket, SonogramShape, duration: Double?)
            case cancelStrip
            /// The strip changed: the status rows are drawn again.
            case statusChanged
        }

        /// What this child knows of the session, fixed at its start.
        struct Setup: Sendable {
            var presenter: Presenter
            var interactive: Bool
            var contrast: SonogramContrast
            var terminal: TerminalGraphicsSupport
        }

        let setup: Setup
        private(set) var state: State = .idle
        private(set) var strip = SonogramStripMachine()
        /// How `sono` draws now (`graphics`).
        private(set) var graphics: GraphicsMode
        /// The line said when the graphics asked for cannot be had, once per mode.
        private var graphicsNoticeSaid: GraphicsMode?
        private var actions: [Action] = []

        init(_ setup: Setup, graphics: GraphicsMode) {
            self.setup = setup
            self.graphics = graphics
        }

        var presenter: Presenter { setup.presenter }

        var isDrawing: Bool { state != .idle }

        mutating func handle(_ event: Event, ids: inout WorkIDs) -> [Action] {
            switch event {
            case .draw(let draw, let recording, let item, let window, let masked, let heard):
                self.draw(draw, recording, item, window: window, masked: masked, heard: heard, ids: &ids)
            case .drawn(let id, let result):
                drawn(id: id, result)
            case .interrupt:
                if isDrawing { actions.append(.cancel) }
            case .strip(let on, let lines, let band, let playback):
                switchStrip(on: on, lines: lines, band: band, playback)
            case .stripPicture(let ticket, let result, let playback):
                switch result {
                case .success(let picture): run(strip.ready(picture, ticket: ticket), playback)
                case .failure(.failed(let message)): run(strip.failed(message, ticket: ticket), playback)
                case .failure(.stopped): break
                }
            case .playback(let playback):
                run(strip.playbackChanged(playback), playback)
            case .graphics(let mode, let playback):
                choose(mode, playback)
            }
            defer { actions = [] }
            return actions
        }

        /// `sono [n] [band] [window]`: computed off the event loop; a script waits for the picture before its
        /// next line.
        private mutating func draw(
            _ draw: SonogramDraw, _ recording: Recording, _ item: PlayItem, window: TimeSpan?, masked: Bool,
            heard: [SegmentDetections], ids: inout WorkIDs
        ) {
            if let duration = item.expectedDuration, let window, window.start >= duration {
                let ends = masked ? "" : " (\(presenter.clock(duration)))"
                actions.append(
                    .refuse("the window starts after \(recording.label) ends\(ends); ask for an earlier one"))
                return
            }
            let (width, lines) = presenter.sonogramShape
            let text = presenter.sonogramRenderer.shape(
                terminalWidth: width, lines: lines, band: draw.band ?? .birds, window: window,
                contrast: draw.contrast ?? setup.contrast)
            var shape = text
            var display = Display.text(columns: text.columns, rows: text.rows)
            if setup.interactive, let canvas = pixelCanvas() {
                // The terminal's width in pixels; a height in proportion (200-400 px), in whole cells so chafa
                // draws pixel for pixel, and for sixels in whole bands of 6 rows (chafa scales onto whole bands).
                let (cellWidth, cellHeight) = (canvas.cellWidth, canvas.cellHeight)
                let imageWidth = (width - 1) * cellWidth
                let step = canvas.pixelProtocol == .sixel ? 6 / Self.gcd(cellHeight, 6) : 1
                let cells = max(step, min(400, max(200, imageWidth / 4)) / cellHeight / step * step)
                let imageHeight = cells * cellHeight
                let area = SonogramRaster.area(width: imageWidth, height: imageHeight)
                shape.columns = area.columns
                shape.rows = area.rows
                display = .pixels(canvas, columns: area.columns, rows: area.rows)
            } else if draw.png != nil {
                // A PNG is drawn at pixel resolution; the text picture is made from it.
                let area = SonogramRaster.area(width: 1000, height: 300)
                shape.columns = area.columns
                shape.rows = area.rows
            }
            let id = ids.next()
            let boxes = recording.annotations.enumerated().compactMap { index, box -> SonogramRaster.Box? in
                box.span.map {
                    SonogramRaster.Box(number: index + 1, span: TimeSpan(start: $0.start, end: $0.end), band: box.band)
                }
            }
            state = .drawing(
                Job(
                    id: id, row: draw.row, label: recording.label, title: recording.title, display: display,
                    png: draw.png, boxes: boxes, heard: masked ? [] : heard, fromZero: masked))
            actions.append(.draw(id: id, item, shape))
            if !setup.interactive { actions.append(.hold) }
        }

        private mutating func drawn(id: Int, _ result: Result<Sonogram, WorkFailure>) {
            // A computation replaced by a newer `sono` ends quietly.
            guard case .drawing(let job) = state, job.id == id else { return }
            state = .idle
            switch result {
            case .success(let sonogram): show(sonogram, job)
            case .failure(.stopped): actions.append(.refuse(job.row.map { "sono \($0) stopped" } ?? "sono stopped"))
            case .failure(.failed(let message)): actions.append(.refuse(message))
            }
            actions.append(.done)
        }

        /// A computed sonogram, shown as its job asked (and written as a PNG).
        private mutating func show(_ drawn: Sonogram, _ job: Job) {
            var sonogram = drawn
            if job.fromZero { sonogram.startTime = 0 }
            switch job.display {
            case .text(let columns, let rows):
                let picture =
                    sonogram.columns == columns && sonogram.rows == rows
                    ? sonogram : sonogram.resampled(columns: columns, rows: rows)
                actions.append(
                    .print(
                        presenter.sonogram(
                            picture, label: job.label, title: job.title, boxes: job.boxes, heard: job.heard)))
            case .pixels(let canvas, let columns, let rows):
                let picture =
                    sonogram.columns == columns && sonogram.rows == rows
                    ? sonogram : sonogram.resampled(columns: columns, rows: rows)
                let image = SonogramRaster.image(picture, boxes: job.boxes, heard: job.heard)
                actions.append(
                    .showPicture(
                        [presenter.sonogramHeader(picture, label: job.label, title: job.title)], image, canvas))
            }
            if let path = job.png {
                let image = SonogramRaster.image(sonogram, boxes: job.boxes, heard: job.heard)
                actions.append(.request(.writePNG(image, path: path)))
            }
        }

        private mutating func switchStrip(on: Bool, lines: Int?, band: FrequencyBand?, _ playback: PlaybackState) {
            guard setup.interactive else {
                actions.append(.refuse("the live strip needs a terminal; sono <n> prints the picture"))
                return
            }
            let action =
                on
                ? strip.turnOn(playing: playback, lines: lines, band: band, canvas: pixelCanvas()) : strip.turnOff()
            run(action, playback)
            // The strip is drawn only while a recording plays: the answer says at once what it will draw.
            if case .refuse = action {} else { actions.append(.print(presenter.stripSwitched(strip))) }
            actions.append(.statusChanged)
        }

        static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? max(1, a) : gcd(b, a % b) }

        /// A character cell's pixels where the terminal did not say (a common 10 × 20).
        static let cellWidth = 10
        static let cellHeight = 20

        /// Where `sono` and the live strip draw now: real pixels where the graphics mode gives a protocol (nil:
        /// half-blocks).
        private mutating func pixelCanvas() -> PixelCanvas? {
            pixelProtocol().map {
                PixelCanvas(
                    $0, cellWidth: setup.terminal.cellWidth ?? Self.cellWidth,
                    cellHeight: setup.terminal.cellHeight ?? Self.cellHeight)
            }
        }

        /// The pixel protocol `sono` draws with now, if any; says once why the mode asked for cannot be had.
        private mutating func pixelProtocol() -> PixelProtocol? {
            let (pixels, notice) = setup.terminal.resolve(graphics)
            if let notice, graphicsNoticeSaid != graphics {
                graphicsNoticeSaid = graphics
                actions.append(.refuse(notice))
            }
            return pixels
        }

        /// `graphics [mode]`.
        private mutating func choose(_ mode: GraphicsMode?, _ playback: PlaybackState) {
            if let mode {
                graphics = mode
                graphicsNoticeSaid = nil
                if setup.interactive, strip.state != .off {
                    run(strip.canvasChanged(pixelCanvas(), playing: playback), playback)
                    actions.append(.statusChanged)
                }
            }
            guard setup.interactive else {
                actions.append(.print([presenter.graphics(graphics, drawing: nil, terminal: setup.terminal)]))
                return
            }
            let (pixels, _) = setup.terminal.resolve(graphics)
            actions.append(.print([presenter.graphics(graphics, drawing: pixels, terminal: setup.terminal)]))
        }

        /// What the strip machine decided.
        private mutating func run(_ action: SonogramStripMachine.Action, _ playback: PlaybackState) {
            switch action {
            case .nothing:
                break
            case .refuse(let reason):
                actions.append(.refuse(reason))
            case .cancel:
                actions.append(.cancelStrip)
            case .listen(let then):
                actions.append(.listenStrip)
                run(then, playback)
            case .compute(let item, let ticket):
                let duration = playback.progress?.duration ?? item.expectedDuration
                actions.append(
                    .computeStrip(
                        item, ticket, presenter.stripShape(duration: duration, strip: strip), duration: duration))
            }
        }
    }
}
