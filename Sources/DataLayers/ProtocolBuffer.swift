#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One field of a protocol buffer read without its schema.
public struct ProtocolBufferField: Hashable, Sendable {
    /// The field number (1 to 2²⁹ − 1).
    public var number: Int
    /// The byte offset of the field's tag, from the start of the outermost message's bytes.
    public var offset: Int
    /// The value, as the wire type tells it.
    public var value: ProtocolBufferValue

    /// Makes a field.
    public init(number: Int, offset: Int, value: ProtocolBufferValue) {
        self.number = number
        self.offset = offset
        self.value = value
    }
}

/// A field's value as its wire type tells it, as `protoc --decode_raw`
/// reads one: a length-delimited value that parses whole as a message is
/// kept as one; otherwise its bytes (text when they are UTF-8).
public enum ProtocolBufferValue: Hashable, Sendable {
    /// Wire type 0: a base-128 integer (as stored: a negative `int32` is 2⁶⁴ − n; a `sint` is zigzagged).
    case varint(UInt64)
    /// Wire type 1: eight little-endian bytes (a `fixed64`, `sfixed64` or `double`).
    case fixed64(UInt64)
    /// Wire type 5: four little-endian bytes (a `fixed32`, `sfixed32` or `float`).
    case fixed32(UInt32)
    /// Wire type 2, parsing whole as a message.
    case message([ProtocolBufferField])
    /// Wire type 2 that is not a message (a string, bytes, a packed array):
    /// the bytes, with `text` when they are UTF-8.
    case bytes(Data)
    /// Wire types 3 and 4: a group's fields.
    case group([ProtocolBufferField])

    /// The wire type's number (0, 1, 2, 3 or 5).
    public var wireType: Int {
        switch self {
        case .varint: 0
        case .fixed64: 1
        case .message, .bytes: 2
        case .group: 3
        case .fixed32: 5
        }
    }

    /// For `.bytes`, the bytes as text when they are UTF-8; nil otherwise.
    public var text: String? {
        guard case .bytes(let data) = self else { return nil }
        return String(validating: data, as: UTF8.self)
    }
}

/// Reads a protocol buffer without its schema, as `protoc --decode_raw`
/// does: field numbers and wire types, each length-delimited value tried
/// as a nested message and kept as one when it parses whole (an empty one
/// is bytes), its bytes otherwise.
public struct ProtocolBufferReader: Sendable {
    /// How deeply messages (and groups) may nest; the next level is an error, not bytes.
    public var maximumDepth: Int
    /// How many fields all the messages may hold together.
    public var maximumFields: Int

    /// Makes a reader with these limits (`protoc` nests at most 100 deep).
    public init(maximumDepth: Int = 100, maximumFields: Int = 1_000_000) {
        self.maximumDepth = maximumDepth
        self.maximumFields = maximumFields
    }

    /// The fields of the message `bytes` hold.
    ///
    /// - Throws: `DataLayerError` `.truncated` or `.corrupt` at the byte
    ///   where the bytes stop being a message (a varint of more than ten
    ///   bytes, field number 0 or past 2²⁹ − 1, wire type 6 or 7, a length
    ///   past the end, an unmatched group end); `.depthLimit` or
    ///   `.fieldLimit` at the field that passes a limit. Costs one pass per
    ///   nesting level tried.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(DataLayerError) -> [ProtocolBufferField] {
        var budget = maximumFields
        var position = 0
        return try parse(bytes, from: &position, to: bytes.count, depth: 0, group: nil, budget: &budget)
    }

    /// Reads `data`; see `read(_:)`.
    public func read(_ data: Data) throws(DataLayerError) -> [ProtocolBufferField] {
        do {
            return try data.withUnsafeBytes { buffer in try read(buffer) }
        } catch let error as DataLayerError {
            throw error
        } catch {
            throw DataLayerError(.corrupt, offset: 0, "\(error)")
        }
    }

    /// Parses fields from `position` to `end`; with `group`, until that group's end tag.
    private func parse(
        _ bytes: UnsafeRawBufferPointer, from position: inout Int, to end: Int, depth: Int, group: Int?, budget: inout Int
    ) throws(DataLayerError) -> [ProtocolBufferField] {
        guard depth < maximumDepth else {
            throw DataLayerError(.depthLimit, offset: position, "messages nest more than \(maximumDepth) deep")
        }
        var fields: [ProtocolBufferField] = []
        while position < end {
            let tagOffset = position
            let tag = try Self.varint(bytes, at: &position, end: end)
            let number = tag >> 3
            guard number >= 1, number < 1 << 29 else {
                throw DataLayerError(.corrupt, offset: tagOffset, "field number \(number) is not one a message can have")
            }
            let value: ProtocolBufferValue
            switch tag & 7 {
            case 0:
                value = .varint(try Self.varint(bytes, at: &position, end: end))
            case 1:
                value = .fixed64(try Self.littleEndian(bytes, at: &position, count: 8, end: end))
            case 5:
                value = .fixed32(UInt32(try Self.littleEndian(bytes, at: &position, count: 4, end: end)))
            case 2:
                let length = try Self.varint(bytes, at: &position, end: end)
                guard length <= UInt64(end - position) else {
                    throw DataLayerError(.truncated, offset: tagOffset, "field \(number)'s \(length) bytes run past the end")
                }
                let start = position, stop = position + Int(length)
                position = stop
                value = try lengthDelimited(bytes, start, stop, depth: depth, budget: &budget)
            case 3:
                var inner = position
                let fields = try parse(bytes, from: &inner, to: end, depth: depth + 1, group: Int(number), budget: &budget)
                position = inner
                value = .group(fields)
            case 4:
                guard group == Int(number) else {
                    throw DataLayerError(.corrupt, offset: tagOffset, "the end of group \(number), which was not begun")
                }
                return fields
            default:
                throw DataLayerError(.corrupt, offset: tagOffset, "wire type \(tag & 7), which no field has")
            }
            budget -= 1
            guard budget >= 0 else { throw DataLayerError(.fieldLimit, offset: tagOffset, "more than \(maximumFields) fields") }
            fields.append(ProtocolBufferField(number: Int(number), offset: tagOffset, value: value))
        }
        if let group { throw DataLayerError(.truncated, offset: position, "group \(group) has no end") }
        return fields
    }

    /// A length-delimited value: a message when its bytes parse whole as
    /// one; its bytes otherwise. A limit passed inside is an error, not bytes.
    private func lengthDelimited(
        _ bytes: UnsafeRawBufferPointer, _ start: Int, _ stop: Int, depth: Int, budget: inout Int
    ) throws(DataLayerError) -> ProtocolBufferValue {
        guard stop > start else { return .bytes(Data()) }
        var inner = start
        var trial = budget
        do {
            let fields = try parse(bytes, from: &inner, to: stop, depth: depth + 1, group: nil, budget: &trial)
            budget = trial
            return .message(fields)
        } catch  where error.isLimit {
            throw error
        } catch {
            return .bytes(Data(bytes[start..<stop]))
        }
    }

    private static func varint(_ bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int) throws(DataLayerError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw DataLayerError(.truncated, offset: start, "a varint runs past the end") }
            let byte = bytes[position]
            position += 1
            guard shift < 64, shift < 63 || byte <= 1 else {
                throw DataLayerError(.corrupt, offset: start, "a varint longer than 64 bits")
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private static func littleEndian(_ bytes: UnsafeRawBufferPointer, at position: inout Int, count: Int, end: Int) throws(DataLayerError)
        -> UInt64
    {
        guard end - position >= count else {
            throw DataLayerError(.truncated, offset: position, "\(count) fixed bytes run past the end")
        }
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
        position += count
        return value
    }
}
