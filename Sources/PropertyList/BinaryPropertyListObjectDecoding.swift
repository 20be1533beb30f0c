#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the one decoder of binary property-list objects reads bytes: the
/// whole file in memory (`BinaryPropertyListScanner`) or the 4 KB windows
/// `PartialBinaryPropertyList` reads with `pread`. Modelled on
/// swift-foundation's `BPlistPrimitiveSource`: one decoder, several sources,
/// each specialised by the compiler so the buffer's costs no more than code
/// written for it alone.
protocol BinaryPropertyListByteSource {
    /// Where the object area ends: the offset table's start.
    var objectsEnd: Int { get }
    /// The big-endian unsigned integer of `size` (1 to 8) bytes at `offset`,
    /// which the caller has checked lie in the object area.
    func unsigned(at offset: Int, size: Int) throws(PropertyListError) -> UInt64
}

/// An object that holds no references and no bytes of variable length.
enum BinaryPropertyListScalar {
    case bool(Bool)
    case integer(PropertyListInteger)
    case real32(Float)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case uid(UInt64)
}

extension PropertyListValue {
    /// The value of a binary property list's scalar.
    @inline(__always)
    init(_ scalar: BinaryPropertyListScalar) {
        switch scalar {
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .real32(let value): self = .real32(value)
        case .real(let value): self = .real(value)
        case .date(let seconds): self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uid(let value): self = .uid(value)
        }
    }
}

extension BinaryPropertyListByteSource {
    /// The scalar whose marker `marker` is at `offset` (kinds 0x0, 0x1, 0x2,
    /// 0x3 and 0x8), checked as CoreFoundation would. The caller decodes
    /// kinds 0x4, 0x5, 0x6 and 0xA to 0xD itself; any other is refused here.
    @inline(__always)
    func scalar(marker: UInt8, at offset: Int) throws(PropertyListError) -> BinaryPropertyListScalar {
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default:
                throw PropertyListError(
                    .invalidObject, at: .byteOffset(offset),
                    "marker 0x\(Self.hex(marker)) (null or fill) is not a value a property list can hold")
            }
        case 0x1:
            return .integer(try integer(marker: marker, at: offset))
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            try needBytes(size, after: offset, what: "real")
            switch size {
            case 4: return .real32(Float(bitPattern: UInt32(truncatingIfNeeded: try unsigned(at: offset + 1, size: 4))))
            case 8: return .real(Double(bitPattern: try unsigned(at: offset + 1, size: 8)))
            default:
                throw PropertyListError(.invalidObject, at: .byteOffset(offset), "a real of \(size) bytes; only 4 and 8 are valid")
            }
        case 0x3:
            guard marker == 0x33 else {
                throw PropertyListError(.invalidObject, at: .byteOffset(offset), "marker 0x\(Self.hex(marker)) is not a valid date")
            }
            try needBytes(8, after: offset, what: "date")
            let seconds = Double(bitPattern: try unsigned(at: offset + 1, size: 8))
            guard seconds.isFinite else {
                throw PropertyListError(.invalidValue, at: .byteOffset(offset), "the date is \(seconds), not a finite time")
            }
            return .date(seconds)
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            try needBytes(size, after: offset, what: "UID")
            guard size <= 8 else {
                guard try unsigned(at: offset + 1, size: size - 8) == 0 else {
                    throw PropertyListError(.invalidValue, at: .byteOffset(offset), "the UID does not fit in 64 bits")
                }
                return .uid(try unsigned(at: offset + 1 + size - 8, size: 8))
            }
            return .uid(try unsigned(at: offset + 1, size: size))
        default:
            throw PropertyListError(.invalidObject, at: .byteOffset(offset), "unknown object marker 0x\(Self.hex(marker))")
        }
    }

    /// The integer whose marker `marker` is at `offset`.
    @inline(__always)
    func integer(marker: UInt8, at offset: Int) throws(PropertyListError) -> PropertyListInteger {
        let size = 1 << Int(marker & 0x0F)
        guard size <= 16 else {
            throw PropertyListError(.invalidObject, at: .byteOffset(offset), "an integer of \(size) bytes; at most 16 are valid")
        }
        try needBytes(size, after: offset, what: "integer")
        switch size {
        case 1, 2, 4:
            return PropertyListInteger(try unsigned(at: offset + 1, size: size))
        case 8:
            return PropertyListInteger(Int64(bitPattern: try unsigned(at: offset + 1, size: 8)))
        default:
            // 16 bytes: CoreFoundation writes values above Int64.max this way, the
            // high half zero. A high half of all ones is a negative 64-bit value.
            let high = try unsigned(at: offset + 1, size: 8)
            let low = try unsigned(at: offset + 9, size: 8)
            if high == 0 { return PropertyListInteger(low) }
            if high == UInt64.max, Int64(bitPattern: low) < 0 { return PropertyListInteger(Int64(bitPattern: low)) }
            throw PropertyListError(.invalidValue, at: .byteOffset(offset), "the 128-bit integer is outside Int64.min ... UInt64.max")
        }
    }

    /// The length of the object whose marker `marker` is at `offset`, and
    /// where its payload starts. Lengths of 15 or more are stored as a
    /// following integer; the length is checked only to fit in the file.
    @inline(__always)
    func lengthAndPayload(marker: UInt8, at offset: Int) throws(PropertyListError) -> (length: Int, payload: Int) {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (low, offset &+ 1) }  // Safe: offset < objectsEnd.
        let lengthMarkerOffset = offset + 1
        guard lengthMarkerOffset < objectsEnd else {
            throw PropertyListError(.truncated, at: .byteOffset(lengthMarkerOffset), "the object's length is cut off")
        }
        let lengthMarker = try unsigned(at: lengthMarkerOffset, size: 1)
        guard lengthMarker & 0xF0 == 0x10, lengthMarker & 0x0F <= 3 else {
            throw PropertyListError(
                .invalidObject, at: .byteOffset(lengthMarkerOffset),
                "the object's length must be an integer of 1 to 8 bytes, not marker 0x\(String(lengthMarker, radix: 16))")
        }
        let size = 1 << Int(lengthMarker & 0x0F)
        guard lengthMarkerOffset + 1 + size <= objectsEnd else {
            throw PropertyListError(.truncated, at: .byteOffset(lengthMarkerOffset), "the object's length is cut off")
        }
        let length = try unsigned(at: lengthMarkerOffset + 1, size: size)
        guard length <= UInt64(objectsEnd) else {
            throw PropertyListError(
                .truncated, at: .byteOffset(offset),
                "the object claims \(length) elements, more than the file holds")
        }
        return (Int(length), lengthMarkerOffset + 1 + size)
    }

    /// Checks that `count` items of `itemSize` bytes from `payload` lie in the object area.
    @inline(__always)
    func checkExtent(payload: Int, count: Int, itemSize: Int, objectOffset: Int, what: String) throws(PropertyListError) {
        let (bytesNeeded, overflow) = count.multipliedReportingOverflow(by: itemSize)
        guard !overflow, bytesNeeded <= objectsEnd - payload else {
            throw PropertyListError(
                .truncated, at: .byteOffset(objectOffset),
                "the \(what) at byte \(objectOffset) claims \(count) elements, which run past the object area")
        }
    }

    /// Checks that `count` bytes follow the marker at `offset` in the object area.
    @inline(__always)
    func needBytes(_ count: Int, after offset: Int, what: String) throws(PropertyListError) {
        guard count <= objectsEnd - offset - 1 else {
            throw PropertyListError(.truncated, at: .byteOffset(offset), "the \(what) needs \(count) bytes after its marker; the object area ends first")
        }
    }

    /// `byte` in two hexadecimal digits.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
