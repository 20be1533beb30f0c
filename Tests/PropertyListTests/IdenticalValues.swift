import PropertyList

/// Equal values, reals compared by their bits (so that NaN equals itself):
/// how the tests that hold two readings of one file to agreeing compare them.
func identical(_ first: PropertyListValue, _ second: PropertyListValue) -> Bool {
    switch (first, second) {
    case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
    case (.real32(let a), .real32(let b)): a.bitPattern == b.bitPattern
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
    case (.dictionary(let a), .dictionary(let b)):
        a.keys == b.keys && zip(a.values, b.values).allSatisfy { identical($0, $1) }
    default: first == second
    }
}
