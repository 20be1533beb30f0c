/// A check of bytes said to be one value in the flat form (`FlatPropertyListTag`'s
/// tags; `ictkit.h` describes it), in one pass in their order, building
/// nothing: after it, a reader can take every tag, count and length as it
/// finds them. The first problem in the bytes' order is thrown, with its
/// byte offset.
package struct FlatPropertyListCheck {
    /// The values (each key, each container and each scalar) the bytes hold.
    package private(set) var valueCount = 0

    private let bytes: UnsafeRawBufferPointer
    private let maximumDepth: Int
    private var offset = 0

    /// Checks `bytes`.
    ///
    /// - Throws: `PropertyListError` with the byte offset in `bytes`:
    ///   `.truncated` where a value runs past the end, `.invalidObject` for an
    ///   unknown tag or bytes after the value, `.invalidString` for a string
    ///   that is not UTF-8, `.invalidKey` for a dictionary key that is not a
    ///   string; `.limitExceeded(.depth)`, with no place, for containers
    ///   nested deeper than `maximumDepth` (the caller's value is what nests
    ///   too deep: an offset in the flat bytes would say nothing to it).
    package init(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int) throws(PropertyListError) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        try value(depth: 0)
        guard offset == bytes.count else {
            throw PropertyListError(.invalidObject, at: .byteOffset(offset), "bytes follow the flat value")
        }
    }

    private mutating func skip(_ size: Int) throws(PropertyListError) {
        guard bytes.count - offset >= size else {
            throw PropertyListError(.truncated, at: .byteOffset(offset), "the flat value ends inside a value")
        }
        offset += size
    }

    private mutating func tag() throws(PropertyListError) -> UInt8 {
        let start = offset
        try skip(1)
        return bytes[start]
    }

    private mutating func count() throws(PropertyListError) -> Int {
        let start = offset
        try skip(4)
        return Int(bytes.loadUnaligned(fromByteOffset: start, as: UInt32.self))
    }

    /// Skips a length and that many bytes; returns them.
    private mutating func run() throws(PropertyListError) -> UnsafeRawBufferPointer {
        let count = try count()
        guard bytes.count - offset >= count else {
            throw PropertyListError(.truncated, at: .byteOffset(offset), "the flat value ends inside \(count) bytes")
        }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    private mutating func string() throws(PropertyListError) {
        let start = offset
        guard Self.isUTF8(try run()) else {
            throw PropertyListError(.invalidString, at: .byteOffset(start), "a string is not UTF-8")
        }
    }

    private mutating func value(depth: Int) throws(PropertyListError) {
        let start = offset
        valueCount += 1
        switch try tag() {
        case FlatPropertyListTag.string: try string()
        case FlatPropertyListTag.int64, FlatPropertyListTag.uint64, FlatPropertyListTag.real, FlatPropertyListTag.real32,
            FlatPropertyListTag.date, FlatPropertyListTag.uid:
            try skip(8)
        case FlatPropertyListTag.boolFalse, FlatPropertyListTag.boolTrue: break
        case FlatPropertyListTag.data: _ = try run()
        case let tag where tag == FlatPropertyListTag.array || tag == FlatPropertyListTag.dictionary:
            guard depth < maximumDepth else {
                throw PropertyListError(.limitExceeded(.depth), at: .none, "the value nests deeper than \(maximumDepth) levels")
            }
            let count = try count()
            // Each member takes at least one byte.
            guard count <= bytes.count - offset else {
                throw PropertyListError(.truncated, at: .byteOffset(start), "the flat value ends inside \(count) members")
            }
            for _ in 0..<count {
                if tag == FlatPropertyListTag.dictionary {
                    let keyOffset = offset
                    guard try self.tag() == FlatPropertyListTag.string else {
                        throw PropertyListError(.invalidKey, at: .byteOffset(keyOffset), "a dictionary key is not a string")
                    }
                    valueCount += 1
                    try string()
                }
                try value(depth: depth + 1)
            }
        case let tag:
            throw PropertyListError(.invalidObject, at: .byteOffset(start), "\(tag) is not a flat value's tag")
        }
    }

    /// Whether `bytes` are UTF-8 as `String(validating:as:)` takes it: no
    /// overlong forms, no surrogates, nothing above U+10FFFF. ASCII eight
    /// bytes at a time.
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            if count &- index >= 8, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index &+= 8
                continue
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index &+= 1
                continue
            }
            // The second byte's range, which rules out overlong forms, surrogates and values above U+10FFFF.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return false
            }
            guard count &- index >= length else { return false }
            let second = bytes[index &+ 1]
            guard second >= low, second <= high else { return false }
            var next = index &+ 2
            while next < index &+ length {
                guard bytes[next] & 0xC0 == 0x80 else { return false }
                next &+= 1
            }
            index &+= length
        }
        return true
    }
}
