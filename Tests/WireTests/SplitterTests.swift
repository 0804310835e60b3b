import Testing
import Positioning
import Wire

@Suite("Line splitter")
struct SplitterTests {
    static let text = "ranging,site=s distance=1 1\n\n# comment\r\nmotion,site=s state=\"moving\" 2\r\nx\nlast line"
    static let expected: [Piece] = [
        .line(1, "ranging,site=s distance=1 1"), .line(2, ""), .line(3, "# comment\r"),
        .line(4, "motion,site=s state=\"moving\" 2\r"), .line(5, "x"), .line(6, "last line"),
    ]

    @Test func wholeInput() {
        #expect(split(Array(Self.text.utf8), at: []) == Self.expected)
    }

    @Test func splitAtEveryByteBoundary() {
        let bytes = Array(Self.text.utf8)
        for cut in 0...bytes.count {
            #expect(split(bytes, at: [cut]) == Self.expected, "cut at \(cut)")
        }
    }

    @Test func splitAtEveryPairOfBoundaries() {
        let bytes = Array(Self.text.utf8)
        for a in 0...bytes.count {
            for b in a...bytes.count where split(bytes, at: [a, b]) != Self.expected {
                Issue.record("cuts at \(a), \(b)")
            }
        }
    }

    @Test func randomChunkSizes() {
        var rng = SeededRandom(seed: 42)
        // A longer stream: 300 lines of varied length, some empty, some CRLF.
        var lines: [String] = []
        for k in 0..<300 {
            let length = Int(rng.next() % 120)
            lines.append("l\(k)" + String(repeating: "abcdefgh", count: length / 8) + (k % 7 == 0 ? "\r" : ""))
        }
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let expected = lines.enumerated().map { Piece.line($0.offset + 1, $0.element) }
        for _ in 0..<200 {
            var cuts: [Int] = []
            var at = 0
            while true {
                at += Int(rng.next() % 64) + 1
                if at >= bytes.count { break }
                cuts.append(at)
            }
            #expect(split(bytes, at: cuts) == expected)
        }
    }

    @Test func byteAtATime() {
        let bytes = Array(Self.text.utf8)
        #expect(split(bytes, at: Array(1..<bytes.count)) == Self.expected)
    }

    @Test func lineLengthLimitIsInclusive() {
        let bytes = Array("1234567890\n12345678901\nok\n".utf8)
        let expected: [Piece] = [.line(1, "1234567890"), .tooLong(2), .line(3, "ok")]
        #expect(split(bytes, at: [], maxLineLength: 10) == expected)
        for cut in 0...bytes.count {
            #expect(split(bytes, at: [cut], maxLineLength: 10) == expected, "cut at \(cut)")
        }
        #expect(split(bytes, at: Array(1..<bytes.count), maxLineLength: 10) == expected)
    }

    @Test func longLineIsSkippedAndReportedOnce() {
        let long = String(repeating: "x", count: 1000)
        let bytes = Array("a\n\(long)\nb\n\(long)".utf8)
        let expected: [Piece] = [.line(1, "a"), .tooLong(2), .line(3, "b"), .tooLong(4)]
        var rng = SeededRandom(seed: 3)
        for _ in 0..<50 {
            var cuts: [Int] = []
            var at = 0
            while true {
                at += Int(rng.next() % 50) + 1
                if at >= bytes.count { break }
                cuts.append(at)
            }
            #expect(split(bytes, at: cuts, maxLineLength: 16) == expected)
        }
    }

    @Test func tooLongIsReportedBeforeTheNewlineArrives() {
        var splitter = LineSplitter(maxLineLength: 8)
        var out: [Piece] = []
        splitter.feed(Array("ok\n0123456789".utf8)) { out.append(Piece($0)) }
        #expect(out == [.line(1, "ok"), .tooLong(2)])
        splitter.feed(Array("more and more".utf8)) { out.append(Piece($0)) }
        splitter.feed(Array("tail\nnext\n".utf8)) { out.append(Piece($0)) }
        #expect(out == [.line(1, "ok"), .tooLong(2), .line(3, "next")])
        #expect(splitter.lineCount == 3)
    }

    @Test func finishDeliversTheUnterminatedLine() {
        var splitter = LineSplitter()
        var out: [Piece] = []
        splitter.feed(Array("a\nb".utf8)) { out.append(Piece($0)) }
        #expect(splitter.hasPartialLine)
        splitter.finish { out.append(Piece($0)) }
        splitter.finish { out.append(Piece($0)) } // nothing more
        #expect(out == [.line(1, "a"), .line(2, "b")])
        #expect(!splitter.hasPartialLine)
    }

    @Test func discardDropsThePartialLine() {
        var splitter = LineSplitter()
        var out: [Piece] = []
        splitter.feed(Array("a\npart".utf8)) { out.append(Piece($0)) }
        let dropped = splitter.discardPartialLine()
        let droppedAgain = splitter.discardPartialLine()
        #expect(dropped)
        #expect(!droppedAgain)
        splitter.feed(Array("b\n".utf8)) { out.append(Piece($0)) }
        splitter.finish { out.append(Piece($0)) }
        #expect(out == [.line(1, "a"), .line(2, "b")])
    }

    @Test func emptyChunksAreHarmless() {
        var splitter = LineSplitter()
        var out: [Piece] = []
        splitter.feed([]) { out.append(Piece($0)) }
        splitter.feed(Array("a".utf8)) { out.append(Piece($0)) }
        splitter.feed([]) { out.append(Piece($0)) }
        splitter.feed(Array("\n".utf8)) { out.append(Piece($0)) }
        #expect(out == [.line(1, "a")])
    }
}
