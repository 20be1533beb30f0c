/// Reads `NSArchiver`'s typed stream format (the `typedstream` of NeXTSTEP
/// and Mac OS X: old `objects.nib` files, iMessage's `attributedBody`,
/// `NSArchiver` data) into a ``TypedStreamDocument``, losslessly: every
/// class with its version and superclass, every object with its groups of
/// values and their type encodings, shared objects and strings kept shared.
///
/// Both byte orders are read (`streamtyped`, little-endian, and
/// `typedstream`, big-endian), streamer version 4 (every Mac OS X release).
/// Reading is one pass over the bytes with no per-byte allocation.
public struct TypedStreamReader: Sendable {
    /// The limits reading stops at.
    public var limits: TypedStreamLimits

    /// Makes a reader with `limits`.
    public init(limits: TypedStreamLimits = .default) {
        self.limits = limits
    }

    /// Whether `bytes` start with a typed stream's header (either byte order).
    public static func isTypedStream(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 13 && bytes[1] == 11
            && (bytes[2..<13].elementsEqual("streamtyped".utf8) || bytes[2..<13].elementsEqual("typedstream".utf8))
    }

    /// Reads a whole typed stream.
    ///
    /// Throws ``TypedStreamError`` with the byte offset of the first value
    /// that is malformed, truncated, refers to something not yet read, or
    /// passes one of ``limits``.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(TypedStreamError) -> TypedStreamDocument {
        var scanner = TypedStreamScanner(bytes: bytes, limits: limits)
        return try scanner.readDocument()
    }

    /// Reads a whole typed stream from an array of bytes, as the buffer
    /// overload does; throws ``TypedStreamError`` as it does.
    public func read(_ bytes: [UInt8]) throws(TypedStreamError) -> TypedStreamDocument {
        let result: Result<TypedStreamDocument, TypedStreamError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(TypedStreamError) in try read(buffer) }
        }
        return try result.get()
    }
}

/// The head-byte tags (as signed bytes); any other head byte is a literal
/// one-byte integer or a one-byte reference number.
private enum Tag {
    static let integer2: Int8 = -127
    static let integer4: Int8 = -126
    static let floatingPoint: Int8 = -125
    static let new: Int8 = -124
    static let `nil`: Int8 = -123
    static let endOfObject: Int8 = -122
    /// 0x87: an 8-byte integer, which `NSArchiver` writes for an `NSNumber`
    /// (`q`, `Q`) whose value does not fit in 32 bits.
    static let integer8: Int8 = -121
    static let range: ClosedRange<Int8> = -128 ... -111
    /// Reference numbers start one past the last tag.
    static let firstReference: Int64 = -110
}

/// The one table objects, classes and C strings share their reference numbers in.
private enum SharedEntry {
    case object(Int)
    case `class`(Int)
    case cString([UInt8])

    var kindName: String {
        switch self {
        case .object: "an object"
        case .class: "a class"
        case .cString: "a C string"
        }
    }
}

private struct TypedStreamScanner {
    let bytes: UnsafeRawBufferPointer
    let limits: TypedStreamLimits
    var position = 0
    var bigEndian = false
    var strings: [[UInt8]] = []
    var shared: [SharedEntry] = []
    var classes: [TypedStreamClass] = []
    var objects: [TypedStreamObject] = []
    var valueCount = 0
    /// Parsed group encodings by the index of their string in `strings` (an array beside it: hashing the index
    /// cost more than the lookup it saved).
    var encodings: [[(text: String, encoding: TypeEncoding)]?] = []

    init(bytes: UnsafeRawBufferPointer, limits: TypedStreamLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func readDocument() throws(TypedStreamError) -> TypedStreamDocument {
        guard bytes.count >= 2 else { throw TypedStreamError(.truncated, at: bytes.count, "the stream ends inside its header") }
        let streamerVersion = Int(bytes[0])
        guard bytes[1] == 11, bytes.count >= 13 else {
            throw TypedStreamError(.notATypedStream, at: 1, "not a typed stream (no 'streamtyped' or 'typedstream' signature)")
        }
        if bytes[2..<13].elementsEqual("streamtyped".utf8) {
            bigEndian = false
        } else if bytes[2..<13].elementsEqual("typedstream".utf8) {
            bigEndian = true
        } else {
            throw TypedStreamError(.notATypedStream, at: 2, "not a typed stream (no 'streamtyped' or 'typedstream' signature)")
        }
        guard streamerVersion == 4 else {
            throw TypedStreamError(.unsupportedVersion, at: 0, "streamer version \(streamerVersion) (only 4, Mac OS X's, is read)")
        }
        position = 13
        let systemVersion = try readInteger(signed: false)
        var root: [TypedStreamGroup] = []
        while position < bytes.count {
            let start = position
            let head = try readHead()
            root.append(try readGroup(head: head, at: start, depth: 0))
        }
        return TypedStreamDocument(
            byteOrder: bigEndian ? .bigEndian : .littleEndian, streamerVersion: streamerVersion, systemVersion: Int(systemVersion),
            classes: classes, objects: objects, root: root)
    }

    // MARK: Low-level reads

    private func truncated(_ what: String, at offset: Int) -> TypedStreamError {
        TypedStreamError(.truncated, at: offset, "the stream ends inside \(what)")
    }

    private mutating func readHead() throws(TypedStreamError) -> Int8 {
        guard position < bytes.count else { throw truncated("a value", at: position) }
        defer { position &+= 1 }  // position < bytes.count: cannot overflow.
        return Int8(bitPattern: bytes[position])
    }

    private mutating func readRaw(_ count: Int, _ what: String) throws(TypedStreamError) -> UnsafeRawBufferPointer {
        guard count <= bytes.count - position else { throw truncated(what, at: position) }
        defer { position &+= count }  // Checked against bytes.count above.
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }

    private mutating func readUInt16() throws(TypedStreamError) -> UInt16 {
        let raw = try readRaw(2, "a 2-byte integer").loadUnaligned(as: UInt16.self)
        return bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
    }

    private mutating func readUInt32() throws(TypedStreamError) -> UInt32 {
        let raw = try readRaw(4, "a 4-byte value").loadUnaligned(as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    private mutating func readUInt64() throws(TypedStreamError) -> UInt64 {
        let raw = try readRaw(8, "an 8-byte value").loadUnaligned(as: UInt64.self)
        return bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
    }

    /// An integer whose head byte is `head` (read already) or the next byte.
    private mutating func readInteger(head given: Int8? = nil, signed: Bool) throws(TypedStreamError) -> Int64 {
        let start = given == nil ? position : position - 1
        let head: Int8
        if let given { head = given } else { head = try readHead() }
        if !Tag.range.contains(head) { return signed ? Int64(head) : Int64(UInt8(bitPattern: head)) }
        switch head {
        case Tag.integer2:
            let value = try readUInt16()
            return signed ? Int64(Int16(bitPattern: value)) : Int64(value)
        case Tag.integer4:
            let value = try readUInt32()
            return signed ? Int64(Int32(bitPattern: value)) : Int64(value)
        case Tag.integer8:
            let value = try readUInt64()
            if signed { return Int64(bitPattern: value) }
            guard let unsigned = Int64(exactly: value) else {
                throw TypedStreamError(
                    .invalidValue, at: start, "an unsigned 8-byte integer \(value), above \(Int64.max), the largest integer this reader keeps")
            }
            return unsigned
        default:
            throw TypedStreamError(.invalidTag, at: start, "tag \(UInt8(bitPattern: head)) where an integer belongs")
        }
    }

    /// A reference number, as an index from 0.
    private mutating func readReference(head: Int8) throws(TypedStreamError) -> Int {
        let start = position - 1
        // An 8-byte reference number near Int64.max would overflow: such a number names no entry.
        let (index, overflow) = try readInteger(head: head, signed: true).subtractingReportingOverflow(Tag.firstReference)
        guard !overflow else { throw TypedStreamError(.danglingReference, at: start, "reference number beyond any entry") }
        return Int(index)
    }

    private mutating func readUnsharedString(head: Int8) throws(TypedStreamError) -> [UInt8]? {
        if head == Tag.nil { return nil }
        let start = position - 1
        let length = try readInteger(head: head, signed: false)
        guard length <= Int64(bytes.count - position) else {
            throw TypedStreamError(.truncated, at: start, "a string of \(length) bytes, but only \(bytes.count - position) bytes follow")
        }
        return Array(try readRaw(Int(length), "a string"))
    }

    /// A shared string and its index in `strings`; nil for a nil string.
    private mutating func readSharedString(head: Int8) throws(TypedStreamError) -> (bytes: [UInt8], index: Int)? {
        guard let index = try readSharedStringIndex(head: head) else { return nil }
        return (strings[index], index)
    }

    /// A shared string's index in `strings`, nil for a nil string: a new string is read into `strings`, and a
    /// reference to one is taken with no copy of its bytes made.
    private mutating func readSharedStringIndex(head: Int8) throws(TypedStreamError) -> Int? {
        let start = position - 1
        switch head {
        case Tag.nil:
            return nil
        case Tag.new:
            let innerHead = try readHead()
            guard let string = try readUnsharedString(head: innerHead) else {
                throw TypedStreamError(.invalidValue, at: start, "a new shared string that is nil")
            }
            try count(at: start)
            strings.append(string)
            encodings.append(nil)
            return strings.count - 1
        default:
            let index = try readReference(head: head)
            guard strings.indices.contains(index) else {
                throw TypedStreamError(.danglingReference, at: start, "string reference \(index), but only \(strings.count) strings are read")
            }
            return index
        }
    }

    private mutating func sharedEntry(head: Int8, at start: Int) throws(TypedStreamError) -> SharedEntry {
        let index = try readReference(head: head)
        guard shared.indices.contains(index) else {
            throw TypedStreamError(.danglingReference, at: start, "reference \(index), but only \(shared.count) objects, classes and C strings are read")
        }
        return shared[index]
    }

    private mutating func count(at offset: Int) throws(TypedStreamError) {
        valueCount += 1
        guard valueCount <= limits.maximumValueCount else {
            throw TypedStreamError(.limitExceeded, at: offset, "more values than the maximum value count (\(limits.maximumValueCount))")
        }
    }

    private func checkDepth(_ depth: Int, at offset: Int) throws(TypedStreamError) {
        guard depth <= limits.maximumDepth else {
            throw TypedStreamError(.limitExceeded, at: offset, "values nest deeper than the maximum depth (\(limits.maximumDepth))")
        }
    }

    // MARK: Groups, objects and classes

    private mutating func readGroup(head: Int8, at start: Int, depth: Int) throws(TypedStreamError) -> TypedStreamGroup {
        guard let stringIndex = try readSharedStringIndex(head: head) else {
            throw TypedStreamError(.invalidTypeEncoding, at: start, "a nil type encoding")
        }
        let parsed: [(text: String, encoding: TypeEncoding)]
        if let cached = encodings[stringIndex] {
            parsed = cached
        } else {
            parsed = try TypeEncoding.parseGroup(strings[stringIndex], at: start, maximumDepth: limits.maximumDepth)
            encodings[stringIndex] = parsed
        }
        var values: [TypedStreamField] = []
        values.reserveCapacity(parsed.count)
        for index in parsed.indices {
            values.append(TypedStreamField(encoding: parsed[index].text, value: try readValue(parsed[index].encoding, depth: depth)))
        }
        return TypedStreamGroup(values: values, byteOffset: start)
    }

    private mutating func readValue(_ encoding: borrowing TypeEncoding, depth: Int) throws(TypedStreamError) -> TypedStreamValue {
        let start = position
        try count(at: start)
        switch encoding {
        case .signedInteger, .unsignedInteger:
            return .integer(try readInteger(signed: encoding == .signedInteger))
        case .char(let signed):
            let byte = try readRaw(1, "a char")[0]
            return .integer(signed ? Int64(Int8(bitPattern: byte)) : Int64(byte))
        case .bool:
            let byte = try readRaw(1, "a boolean")[0]
            guard byte <= 1 else { throw TypedStreamError(.invalidValue, at: start, "boolean \(byte) (0 or 1 expected)") }
            return .bool(byte == 1)
        case .float:
            let head = try readHead()
            guard head == Tag.floatingPoint else { return .float(Float(try readInteger(head: head, signed: true))) }
            return .float(Float(bitPattern: try readUInt32()))
        case .double:
            let head = try readHead()
            guard head == Tag.floatingPoint else { return .double(Double(try readInteger(head: head, signed: true))) }
            return .double(Double(bitPattern: try readUInt64()))
        case .unsharedString:
            return .string(try readUnsharedString(head: try readHead()))
        case .sharedString:
            return .string(try readSharedString(head: try readHead())?.bytes)
        case .cString:
            return .string(try readCString())
        case .class:
            return .class(try readClass())
        case .object:
            return .object(try readObject(depth: depth + 1))
        case .none:
            return .none
        case .array(let count, .char):
            guard count <= bytes.count - position else {
                throw TypedStreamError(.truncated, at: start, "an array of \(count) bytes, but only \(bytes.count - position) bytes follow")
            }
            return .bytes(Array(try readRaw(count, "an array of bytes")))
        case .array(let count, let element):
            try checkDepth(depth + 1, at: start)
            var elements: [TypedStreamValue] = []
            elements.reserveCapacity(min(count, bytes.count - position))
            for _ in 0..<count { elements.append(try readValue(element, depth: depth + 1)) }
            return .array(elements)
        case .structure(let name, let fields):
            try checkDepth(depth + 1, at: start)
            var values: [TypedStreamValue] = []
            values.reserveCapacity(fields.count)
            for field in fields { values.append(try readValue(field, depth: depth + 1)) }
            return .structure(name: name, fields: values)
        }
    }

    private mutating func readCString() throws(TypedStreamError) -> [UInt8]? {
        let start = position
        let head = try readHead()
        switch head {
        case Tag.nil:
            return nil
        case Tag.new:
            guard let string = try readSharedString(head: try readHead())?.bytes else {
                throw TypedStreamError(.invalidValue, at: start, "a new C string that is nil")
            }
            guard !string.contains(0) else { throw TypedStreamError(.invalidValue, at: start, "a C string with a zero byte") }
            shared.append(.cString(string))
            return string
        default:
            let entry = try sharedEntry(head: head, at: start)
            guard case .cString(let string) = entry else {
                throw TypedStreamError(.wrongReferenceKind, at: start, "a C string's reference is to \(entry.kindName)")
            }
            return string
        }
    }

    /// A class and its superclasses; its index in `classes`, nil for Nil.
    private mutating func readClass() throws(TypedStreamError) -> Int? {
        var start = position
        var head = try readHead()
        var introduced: [(name: String, version: Int)] = []
        while head == Tag.new {
            let nameStart = position
            guard let name = try readSharedString(head: try readHead())?.bytes else {
                throw TypedStreamError(.invalidValue, at: nameStart, "a class without a name")
            }
            let version = try readInteger(signed: true)
            try count(at: start)
            introduced.append((String(decoding: name, as: UTF8.self), Int(version)))
            start = position
            head = try readHead()
        }
        var superclass: Int?
        if head != Tag.nil {
            let entry = try sharedEntry(head: head, at: start)
            guard case .class(let index) = entry else {
                throw TypedStreamError(.wrongReferenceKind, at: start, "a class's reference is to \(entry.kindName)")
            }
            superclass = index
        }
        guard !introduced.isEmpty else { return superclass }
        let first = classes.count
        for (offset, item) in introduced.enumerated() {
            let isLast = offset == introduced.count - 1
            classes.append(TypedStreamClass(name: item.name, version: item.version, superclass: isLast ? superclass : first + offset + 1))
            shared.append(.class(first + offset))
        }
        return first
    }

    /// An object; its index in `objects`, nil for nil.
    private mutating func readObject(depth: Int) throws(TypedStreamError) -> Int? {
        let start = position
        let head = try readHead()
        switch head {
        case Tag.nil:
            return nil
        case Tag.new:
            try checkDepth(depth, at: start)
            let index = objects.count
            objects.append(TypedStreamObject(classIndex: 0, groups: [], byteOffset: start))
            shared.append(.object(index))
            guard let classIndex = try readClass() else {
                throw TypedStreamError(.invalidValue, at: start, "an object whose class is Nil")
            }
            var groups: [TypedStreamGroup] = []
            groups.reserveCapacity(4)  // A nib's objects write a few groups each: room once, not regrown group by group.
            while true {
                let groupStart = position
                let next = try readHead()
                if next == Tag.endOfObject { break }
                groups.append(try readGroup(head: next, at: groupStart, depth: depth))
            }
            objects[index].classIndex = classIndex
            objects[index].groups = groups
            return index
        default:
            let entry = try sharedEntry(head: head, at: start)
            guard case .object(let index) = entry else {
                throw TypedStreamError(.wrongReferenceKind, at: start, "an object's reference is to \(entry.kindName)")
            }
            return index
        }
    }
}
