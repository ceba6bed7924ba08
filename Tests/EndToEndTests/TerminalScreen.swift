import Foundation

/// A small VT100/xterm screen: enough of what libedit (with TERM=xterm-256color) and chirper-play write to know
/// what is on each row and where the cursor is. Lines that scroll off the top are kept in `scrollback`.
struct TerminalScreen: Sendable {
    let rows: Int
    let columns: Int
    private(set) var cells: [[Character]]
    private(set) var scrollback: [String] = []
    private(set) var cursorRow = 0
    private(set) var cursorColumn = 0
    /// The cursor is past the last column; the next character wraps first.
    private var pendingWrap = false
    private var insertMode = false
    private var saved = (row: 0, column: 0)
    private var state = ParserState.ground
    private var utf8: [UInt8] = []

    private enum ParserState: Sendable {
        case ground
        case escape
        case charset
        case csi(String)
        case osc(sawEscape: Bool)
    }

    init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    /// The rows on the screen, trailing blanks removed.
    var lines: [String] { cells.map { String($0).trimmingTrailingSpaces() } }

    /// Everything: the rows scrolled off, then the screen.
    var transcript: [String] {
        var all = scrollback + lines
        while all.last?.isEmpty == true { all.removeLast() }
        return all
    }

    /// The row the cursor is on.
    var cursorLine: String { lines[cursorRow] }

    /// The row just above the cursor's.
    var lineAboveCursor: String { cursorRow > 0 ? lines[cursorRow - 1] : scrollback.last ?? "" }

    mutating func feed(_ bytes: [UInt8]) {
        for byte in bytes {
            if !utf8.isEmpty || byte >= 0x80 {
                utf8.append(byte)
                let expected = utf8[0] >= 0xF0 ? 4 : utf8[0] >= 0xE0 ? 3 : utf8[0] >= 0xC0 ? 2 : 1
                if utf8.count >= expected {
                    let text = String(decoding: utf8, as: UTF8.self)
                    utf8.removeAll()
                    for character in text { put(character) }
                }
                continue
            }
            handle(byte)
        }
    }

    private mutating func handle(_ byte: UInt8) {
        switch state {
        case .ground:
            switch byte {
            case 0x1B: state = .escape
            case 0x07: break
            case 0x08:
                cursorColumn = max(0, cursorColumn - 1)
                pendingWrap = false
            case 0x09:
                cursorColumn = min(columns - 1, (cursorColumn / 8 + 1) * 8)
                pendingWrap = false
            case 0x0A, 0x0B, 0x0C:
                lineFeed()
            case 0x0D:
                cursorColumn = 0
                pendingWrap = false
            case 0x00..<0x20, 0x7F:
                break
            default:
                put(Character(Unicode.Scalar(byte)))
            }
        case .escape:
            state = .ground
            switch byte {
            case UInt8(ascii: "["): state = .csi("")
            // OSC, and the other strings a terminal reads to their end and ignores when it does not know them
            // (APC: kitty graphics; DCS: sixels and replies; PM; SOS).
            case UInt8(ascii: "]"), UInt8(ascii: "_"), UInt8(ascii: "P"), UInt8(ascii: "^"), UInt8(ascii: "X"):
                state = .osc(sawEscape: false)
            case UInt8(ascii: "("), UInt8(ascii: ")"): state = .charset
            case UInt8(ascii: "7"): saved = (cursorRow, cursorColumn)
            case UInt8(ascii: "8"):
                (cursorRow, cursorColumn) = saved
                pendingWrap = false
            case UInt8(ascii: "M"):
                if cursorRow > 0 {
                    cursorRow -= 1
                } else {
                    cells.insert(blankRow, at: 0)
                    cells.removeLast()
                }
            default: break
            }
        case .charset:
            state = .ground
        case .osc(let sawEscape):
            if byte == 0x07 || (sawEscape && byte == UInt8(ascii: "\\")) {
                state = .ground
            } else {
                state = .osc(sawEscape: byte == 0x1B)
            }
        case .csi(let parameters):
            if (0x40...0x7E).contains(byte) {
                state = .ground
                controlSequence(parameters, final: Character(Unicode.Scalar(byte)))
            } else {
                state = .csi(parameters + String(Unicode.Scalar(byte)))
            }
        }
    }

    private var blankRow: [Character] { Array(repeating: " ", count: columns) }

    private mutating func put(_ character: Character) {
        if pendingWrap {
            pendingWrap = false
            cursorColumn = 0
            lineFeed()
        }
        if insertMode {
            cells[cursorRow].insert(character, at: cursorColumn)
            cells[cursorRow].removeLast()
        } else {
            cells[cursorRow][cursorColumn] = character
        }
        if cursorColumn == columns - 1 {
            pendingWrap = true
        } else {
            cursorColumn += 1
        }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if cursorRow == rows - 1 {
            scrollback.append(String(cells[0]).trimmingTrailingSpaces())
            cells.removeFirst()
            cells.append(blankRow)
        } else {
            cursorRow += 1
        }
    }

    private mutating func controlSequence(_ parameters: String, final: Character) {
        let isPrivate = parameters.hasPrefix("?") || parameters.hasPrefix(">")
        let numbers = parameters.filter { $0.isNumber || $0 == ";" }.split(
            separator: ";", omittingEmptySubsequences: false
        )
        .map { Int($0) ?? 0 }
        func number(_ index: Int, default value: Int) -> Int {
            index < numbers.count && numbers[index] > 0 ? numbers[index] : value
        }
        let count = number(0, default: 1)
        if final != "m" && final != "h" && final != "l" { pendingWrap = false }
        switch final {
        case "A": cursorRow = max(0, cursorRow - count)
        case "B", "e": cursorRow = min(rows - 1, cursorRow + count)
        case "C", "a": cursorColumn = min(columns - 1, cursorColumn + count)
        case "D": cursorColumn = max(0, cursorColumn - count)
        case "E":
            cursorRow = min(rows - 1, cursorRow + count)
            cursorColumn = 0
        case "F":
            cursorRow = max(0, cursorRow - count)
            cursorColumn = 0
        case "G", "`": cursorColumn = min(columns - 1, count - 1)
        case "d": cursorRow = min(rows - 1, count - 1)
        case "H", "f":
            cursorRow = min(rows - 1, number(0, default: 1) - 1)
            cursorColumn = min(columns - 1, number(1, default: 1) - 1)
        case "J":
            let mode = numbers.first ?? 0
            if mode == 0 {
                clear(row: cursorRow, from: cursorColumn, to: columns)
                for row in (cursorRow + 1)..<rows { cells[row] = blankRow }
            } else if mode == 1 {
                for row in 0..<cursorRow { cells[row] = blankRow }
                clear(row: cursorRow, from: 0, to: cursorColumn + 1)
            } else {
                cells = Array(repeating: blankRow, count: rows)
            }
        case "K":
            switch numbers.first ?? 0 {
            case 0: clear(row: cursorRow, from: cursorColumn, to: columns)
            case 1: clear(row: cursorRow, from: 0, to: cursorColumn + 1)
            default: cells[cursorRow] = blankRow
            }
        case "@":
            for _ in 0..<min(count, columns - cursorColumn) {
                cells[cursorRow].insert(" ", at: cursorColumn)
                cells[cursorRow].removeLast()
            }
        case "P":
            for _ in 0..<min(count, columns - cursorColumn) {
                cells[cursorRow].remove(at: cursorColumn)
                cells[cursorRow].append(" ")
            }
        case "X": clear(row: cursorRow, from: cursorColumn, to: min(columns, cursorColumn + count))
        case "L":
            for _ in 0..<min(count, rows - cursorRow) {
                cells.insert(blankRow, at: cursorRow)
                cells.removeLast()
            }
        case "M":
            for _ in 0..<min(count, rows - cursorRow) {
                cells.remove(at: cursorRow)
                cells.append(blankRow)
            }
        case "h", "l":
            if !isPrivate && numbers.contains(4) { insertMode = final == "h" }
        default:
            break  // SGR, scrolling regions, modes: nothing a test reads
        }
    }

    private mutating func clear(row: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        for column in start..<min(end, columns) { cells[row][column] = " " }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
