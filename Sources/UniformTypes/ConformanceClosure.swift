/// The transitive conformance of every registered type as a bit matrix:
/// row `i` has bit `j` set when type `i` conforms to type `j` (each type
/// conforms to itself). Made on first use after a change to the registry,
/// so a query is one load and a shift.
struct ConformanceClosure: Hashable, Sendable {
    private(set) var words: [UInt64] = []
    private(set) var wordsPerRow = 0

    /// Builds the closure of `parents` (parent indexes per type). Cycle-safe:
    /// a type already in a row is not expanded again, and a finished row is
    /// merged whole. Cost: O(types × (edges + types / 64)) at worst.
    init(parents: [[Int32]]) {
        let count = parents.count
        wordsPerRow = (count + 63) / 64
        words = [UInt64](repeating: 0, count: count * wordsPerRow)
        var finished = [Bool](repeating: false, count: count)
        var stack: [Int32] = []
        for type in 0..<count {
            let row = type * wordsPerRow
            setBit(row: row, type)
            stack.append(contentsOf: parents[type])
            while let next = stack.popLast() {
                let parent = Int(next)
                if testBit(row: row, parent) { continue }
                if finished[parent] {
                    let parentRow = parent * wordsPerRow
                    for word in 0..<wordsPerRow { words[row + word] |= words[parentRow + word] }
                } else {
                    setBit(row: row, parent)
                    stack.append(contentsOf: parents[parent])
                }
            }
            finished[type] = true
        }
    }

    init() {}

    /// True when type `type` conforms to type `ancestor`; both must be valid indexes.
    @inline(__always)
    func conforms(_ type: Int, to ancestor: Int) -> Bool {
        words[type * wordsPerRow + ancestor >> 6] >> UInt64(ancestor & 63) & 1 == 1
    }

    /// The indexes `type` conforms to, itself included, in index order.
    func ancestors(of type: Int) -> [Int] {
        var result: [Int] = []
        let row = type * wordsPerRow
        for word in 0..<wordsPerRow {
            var bits = words[row + word]
            while bits != 0 {
                result.append(word * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return result
    }

    private mutating func setBit(row: Int, _ index: Int) {
        words[row + index >> 6] |= 1 << UInt64(index & 63)
    }

    private func testBit(row: Int, _ index: Int) -> Bool {
        words[row + index >> 6] >> UInt64(index & 63) & 1 == 1
    }
}
