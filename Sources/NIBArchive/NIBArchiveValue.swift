/// One value of a compiled nib, with the type its type byte names.
public enum NIBArchiveValue: Hashable, Sendable {
    /// Type 0: a one-byte integer (read as signed).
    case int8(Int8)
    /// Type 1: a two-byte little-endian integer.
    case int16(Int16)
    /// Type 2: a four-byte little-endian integer.
    case int32(Int32)
    /// Type 3: an eight-byte little-endian integer.
    case int64(Int64)
    /// Type 4 (`true`) or 5 (`false`): no bytes follow.
    case bool(Bool)
    /// Type 6: a four-byte IEEE float.
    case float(Float)
    /// Type 7: an eight-byte IEEE double.
    case double(Double)
    /// Type 8: a varint length, then that many bytes.
    case data([UInt8])
    /// Type 9: nil; no bytes follow.
    case `nil`
    /// Type 10: a four-byte index into the archive's objects.
    case object(Int)

    /// The type byte this value is written with.
    public var typeByte: UInt8 {
        switch self {
        case .int8: 0
        case .int16: 1
        case .int32: 2
        case .int64: 3
        case .bool(let value): value ? 4 : 5
        case .float: 6
        case .double: 7
        case .data: 8
        case .nil: 9
        case .object: 10
        }
    }

    /// The type's name as the JSON form writes it: `int8`, `int16`, `int32`,
    /// `int64`, `true`, `false`, `float`, `double`, `data`, `nil`, `object`.
    public var typeName: String {
        switch self {
        case .int8: "int8"
        case .int16: "int16"
        case .int32: "int32"
        case .int64: "int64"
        case .bool(let value): value ? "true" : "false"
        case .float: "float"
        case .double: "double"
        case .data: "data"
        case .nil: "nil"
        case .object: "object"
        }
    }

    /// The integer an integer value holds; nil for every other type.
    public var integer: Int64? {
        switch self {
        case .int8(let value): Int64(value)
        case .int16(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .int64(let value): value
        default: nil
        }
    }

    /// The object index a reference holds; nil for every other type.
    public var objectIndex: Int? {
        if case .object(let index) = self { return index }
        return nil
    }
}
