import PropertyList

/// `NSNull`: the object collections hold where they hold nothing (a
/// collection cannot hold `$null`).
public struct ArchivedNull: Hashable, Sendable {
    /// The null object.
    public init() {}
}

/// A number as an archive holds it (Foundation's `NSNumber`): an integer, a
/// 64-bit or 32-bit real, or a boolean, stored plainly in `$objects`. Two
/// numbers are equal when their values are, whatever their storage (`8`
/// equals `8.0`), as `NSNumber`s are.
public struct ArchivedNumber: Hashable, Sendable, CustomStringConvertible {
    enum Storage: Hashable, Sendable {
        case integer(PropertyListInteger)
        case real(Double)
        case real32(Float)
        case bool(Bool)
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    /// An integer (`numberWithInteger:`).
    public init(value: Int) { storage = .integer(PropertyListInteger(value)) }
    /// A 32-bit integer (`numberWithInt:`).
    public init(value: Int32) { storage = .integer(PropertyListInteger(Int64(value))) }
    /// A 64-bit integer (`numberWithLongLong:`).
    public init(value: Int64) { storage = .integer(PropertyListInteger(value)) }
    /// A 64-bit real (`numberWithDouble:`).
    public init(value: Double) { storage = .real(value) }
    /// A 32-bit real (`numberWithFloat:`), written as a 32-bit real.
    public init(value: Float) { storage = .real32(value) }
    /// A boolean (`numberWithBool:`).
    public init(value: Bool) { storage = .bool(value) }

    /// The value as a 64-bit real.
    public var doubleValue: Double {
        switch storage {
        case .integer(let integer): integer.int64Value.map(Double.init) ?? Double(integer.bitPattern)
        case .real(let real): real
        case .real32(let real): Double(real)
        case .bool(let flag): flag ? 1 : 0
        }
    }

    /// The value as a 32-bit real.
    public var floatValue: Float { Float(doubleValue) }

    /// The value as a 64-bit integer, reals truncated toward zero (clamped to
    /// `Int64`'s range, NaN as 0).
    public var int64Value: Int64 {
        switch storage {
        case .integer(let integer): return integer.int64Value ?? Int64.max
        case .bool(let flag): return flag ? 1 : 0
        case .real, .real32:
            let real = doubleValue
            if real.isNaN { return 0 }
            return real >= 0x1p63 ? Int64.max : real < -0x1p63 ? Int64.min : Int64(real)
        }
    }

    /// The value as an `Int`, as `int64Value`.
    public var intValue: Int { Int(int64Value) }

    /// True for any value but zero.
    public var boolValue: Bool { doubleValue != 0 }

    /// `8`, `3.5`, `true`.
    public var description: String {
        switch storage {
        case .integer(let integer): integer.description
        case .real(let real): real.description
        case .real32(let real): real.description
        case .bool(let flag): flag.description
        }
    }

    /// True when the values are equal (integers exactly, otherwise as 64-bit reals).
    public static func == (left: ArchivedNumber, right: ArchivedNumber) -> Bool {
        if case .integer(let a) = left.storage, case .integer(let b) = right.storage { return a == b }
        return left.doubleValue == right.doubleValue
    }

    /// Hashes the value as a 64-bit real, so equal numbers hash alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(doubleValue)
    }

    /// The number a plain value in `$objects` stands for; nil for a non-number.
    init?(_ value: PropertyListValue) {
        switch value {
        case .integer(let integer): storage = .integer(integer)
        case .real(let real): storage = .real(real)
        case .real32(let real): storage = .real32(real)
        case .bool(let flag): storage = .bool(flag)
        default: return nil
        }
    }
}
