import KeyedArchive
import NIBArchive
import OrderedCollections
import PropertyList
import TypedStream

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The archive half of include/ictkit.h (keyed archives, typed streams, NIB archives): each decode is one call that
// reads the whole input and writes its values as one value stream (ValueStream below, described in the header), which
// the caller walks once; no call per value crosses the interface. The stream is held by an `ictkit_values` handle.

/// What `ictkit_values *` points to: a value stream, owned until freed.
final class ValuesBox {
    let bytes: UnsafeMutableBufferPointer<UInt8>
    let count: Int

    init(_ stream: [UInt8]) {
        bytes = .allocate(capacity: max(stream.count, 1))
        _ = bytes.initialize(from: stream)
        count = stream.count
    }

    deinit { bytes.deallocate() }

    /// Hands a new stream to a C caller, which then owns it.
    static func handle(_ stream: [UInt8]) -> OpaquePointer { OpaquePointer(Unmanaged.passRetained(ValuesBox(stream)).toOpaque()) }

    /// The box behind a handle a C caller passes back.
    static func from(_ handle: OpaquePointer) -> ValuesBox { Unmanaged<ValuesBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue() }
}

/// A problem found while writing a value stream: a limit hit, or a shape the mode cannot describe.
struct ValueStreamError: Error {
    var code: String
    var message: String
    var keyPath: PropertyListKeyPath
}

/// The value stream (ICTKIT_VALUE_ in ictkit.h): a tag byte per value, little-endian numbers, lengths and counts as
/// 32-bit unsigned; containers give their count first, then their items (a dictionary's key before each value).
struct ValueStream {
    static let none = UInt8(ascii: "n"), true_ = UInt8(ascii: "t"), false_ = UInt8(ascii: "f")
    static let int64 = UInt8(ascii: "i"), uint64 = UInt8(ascii: "u"), double = UInt8(ascii: "r")
    static let string = UInt8(ascii: "s"), bytes = UInt8(ascii: "b"), date = UInt8(ascii: "d"), uid = UInt8(ascii: "U")
    static let list = UInt8(ascii: "l"), dictionary = UInt8(ascii: "m")
    /// A shared object's first naming (its value follows; it takes the next slot) and a later one (a slot number).
    static let definition = UInt8(ascii: "D"), reference = UInt8(ascii: "R")

    private(set) var output: [UInt8] = []
    private var values = 0
    /// How many values the stream may hold: archives share objects, so a small input can name the same large object
    /// many times (each naming written out in full, as the peers do); this bounds what such an input can make.
    let maximumValues: Int

    init(maximumValues: Int, expectedBytes: Int = 0) {
        self.maximumValues = maximumValues
        output.reserveCapacity(expectedBytes)
    }

    mutating func tag(_ tag: UInt8, at path: @autoclosure () -> PropertyListKeyPath) throws(ValueStreamError) {
        values += 1
        guard values <= maximumValues else {
            throw ValueStreamError(
                code: "limitExceeded(values)", message: "the decoded values exceed \(maximumValues) (shared objects written out in full)",
                keyPath: path())
        }
        output.append(tag)
    }

    /// Eight bytes, little-endian, one by one: a few appends of a byte cost less than one of a buffer.
    mutating func word(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func count(_ value: Int) {
        // Safe: every count is of values or bytes held in memory, and the input's own size is below 4 GiB (checked).
        let count = UInt32(truncatingIfNeeded: value)
        for shift in stride(from: 0, to: 32, by: 8) { output.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
    }

    /// Starts a container whose count is known only at its end; returns where to patch it.
    mutating func openCount() -> Int {
        output.append(contentsOf: [0, 0, 0, 0])
        return output.count - 4
    }

    /// Values already in the stream's form (`count` of them, each counted as a tag is), appended at once.
    mutating func encoded(_ bytes: [UInt8], count: Int, at path: @autoclosure () -> PropertyListKeyPath) throws(ValueStreamError) {
        values += count - 1
        try tag(bytes[0], at: path())
        output.append(contentsOf: bytes[1...])
    }

    mutating func patchCount(_ value: Int, at position: Int) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { bytes in
            for index in 0..<4 { output[position + index] = bytes[index] }
        }
    }

    mutating func string(_ text: String, at path: @autoclosure () -> PropertyListKeyPath) throws(ValueStreamError) {
        try tag(Self.string, at: path())
        var text = text
        text.withUTF8 { utf8 in
            count(utf8.count)
            output.append(contentsOf: utf8)
        }
    }

    mutating func bytes<Bytes: Collection<UInt8>>(_ data: Bytes, at path: @autoclosure () -> PropertyListKeyPath) throws(ValueStreamError) {
        try tag(Self.bytes, at: path())
        count(data.count)
        output.append(contentsOf: data)
    }

    mutating func integer(_ value: PropertyListInteger, at path: @autoclosure () -> PropertyListKeyPath) throws(ValueStreamError) {
        if let signed = value.int64Value {
            try tag(Self.int64, at: path())
            word(UInt64(bitPattern: signed))
        } else {
            try tag(Self.uint64, at: path())
            word(value.uint64Value ?? 0)
        }
    }

    mutating func double(_ value: Double, tag: UInt8 = ValueStream.double, at path: @autoclosure () -> PropertyListKeyPath) throws(ValueStreamError) {
        try self.tag(tag, at: path())
        word(value.bitPattern)
    }
}

/// Keyed archives as nska-deserialize 1.5.1 gives them (`nska_deserialize.deserialize_plist`), and as their raw
/// object graph.
struct KeyedArchiveDescriber {
    let graph: KeyedArchiveObjectGraph
    let maximumDepth: Int
    var stream: ValueStream
    /// The objects being written, innermost last: one met again is a cycle, left out of its container as the peer does.
    private var open: Set<Int> = []
    private var depth = 0

    /// The default bound of the values written for an input of `inputSize` bytes: 128 per byte, at least 2^20 and at
    /// most 2^26. A real nib of 36 KB (568 objects, each view naming its window and superview) is 3.5 million values
    /// written out as nska-deserialize writes them; a hostile input is bounded by its size.
    static func defaultMaximumValues(inputSize: Int) -> Int { max(1 << 20, min(inputSize.multipliedReportingOverflow(by: 128).partialValue, 1 << 26)) }

    init(graph: KeyedArchiveObjectGraph, limits: KeyedArchiveLimits, maximumValues: Int) {
        self.graph = graph
        maximumDepth = limits.maximumDepth
        stream = ValueStream(maximumValues: maximumValues)
    }

    /// `{top key: value}` for every `$top` key, in the file's order.
    mutating func describeTop() throws(ValueStreamError) {
        try stream.tag(ValueStream.dictionary, at: [.key("$top")])
        stream.count(graph.top.count)
        for (key, value) in graph.top {
            try stream.string(key, at: [.key("$top")])
            let path: PropertyListKeyPath = [.key("$top"), .key(key)]
            // nska-deserialize does not count a top object as open: met again below itself, it is written once more.
            let written = if case .uid(let uid) = value { try object(uid, at: path, tracked: false) } else { try field(value, at: path) }
            if !written { try stream.string("", at: path) }
        }
    }

    /// Writes a value met inside an object (or `$top`): a reference is followed, an inline container walked.
    /// Returns false, writing nothing, when the value is a reference back to an object being written.
    /// `tracked` false for a value nska-deserialize reaches through ccl_bplist's converting containers (an NSArray's
    /// elements, an NSDictionary's keys and values): it does not count those objects as open, so they are written
    /// again below themselves until a tracked reference or the depth limit stops them.
    private mutating func field(_ value: PropertyListValue, at path: PropertyListKeyPath, tracked: Bool = true) throws(ValueStreamError) -> Bool {
        switch value {
        case .uid(let uid): return try object(uid, at: path, tracked: tracked)
        case .array(let items):
            try enter(path)
            defer { depth -= 1 }
            try list(items, at: path)
        case .dictionary(let fields):
            try enter(path)
            defer { depth -= 1 }
            try dictionary(fields, at: path)
        default: try stream.scalar(value, at: path)
        }
        return true
    }

    private mutating func enter(_ path: PropertyListKeyPath) throws(ValueStreamError) {
        depth += 1
        guard depth <= maximumDepth else {
            throw ValueStreamError(code: "depthLimitExceeded", message: "objects nest deeper than \(maximumDepth) levels", keyPath: path)
        }
    }

    private mutating func list(_ items: [PropertyListValue], at path: PropertyListKeyPath, tracked: Bool = true) throws(ValueStreamError) {
        try stream.tag(ValueStream.list, at: path)
        let position = stream.openCount()
        var written = 0
        for (index, item) in items.enumerated() {
            let itemPath = path.appending(.index(index))
            // $null, and an object nska-deserialize reads as None, is "" in a container (its rule, for plist writing).
            if try field(item, at: itemPath, tracked: tracked) { written += 1 }
        }
        stream.patchCount(written, at: position)
    }

    /// An instance's fields or an inline dictionary, `$class` left out.
    private mutating func dictionary(_ fields: OrderedDictionary<String, PropertyListValue>, at path: PropertyListKeyPath) throws(ValueStreamError) {
        try stream.tag(ValueStream.dictionary, at: path)
        let position = stream.openCount()
        var written = 0
        for (key, value) in fields where key != "$class" {
            let mark = stream.output.count
            try stream.string(key, at: path)
            if try field(value, at: path.appending(.key(key))) {
                written += 1
            } else {
                stream.truncate(to: mark)
            }
        }
        stream.patchCount(written, at: position)
    }

    /// Writes object `uid` of `$objects` as nska-deserialize converts it.
    private mutating func object(_ uid: UInt64, at path: PropertyListKeyPath, tracked: Bool = true) throws(ValueStreamError) -> Bool {
        guard uid < UInt64(graph.objects.count) else {
            throw ValueStreamError(code: "danglingReference", message: "reference \(uid) lies outside $objects", keyPath: path)
        }
        let index = Int(uid)
        switch graph.object(at: index) {
        case .null:
            try stream.string("", at: path)
            return true
        case .value(let value):
            if case .string("$null") = value {
                try stream.string("", at: path)
                return true
            }
            switch value {
            case .array, .dictionary: break
            default:
                try stream.scalar(value, at: path)
                return true
            }
        case .classDescription, .instance: break
        }
        // A container: refused when met again inside itself, as the peer leaves the item out.
        if tracked {
            guard open.insert(index).inserted else { return false }
        }
        defer { if tracked { open.remove(index) } }
        try enter(path)
        defer { depth -= 1 }
        switch graph.object(at: index) {
        case .instance(let instance): try self.instance(instance, at: path)
        default: _ = try field(graph.objects[index], at: path)
        }
        return true
    }

    private mutating func instance(_ instance: KeyedArchiveInstance, at path: PropertyListKeyPath) throws(ValueStreamError) {
        let fields = instance.fields
        let name = instance.classDescription.name
        // nska-deserialize's conversions, each for its class names when the fields it reads are there.
        if (name == "NSDictionary" || name == "NSMutableDictionary") && fields["NS.keys"] != nil && fields["NS.objects"] != nil {
            guard case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"], keys.count == values.count else {
                throw ValueStreamError(
                    code: "invalidObject", message: "a dictionary's NS.keys and NS.objects are not two arrays of one length", keyPath: path)
            }
            // Keys are written as values: the caller turns a non-string key into its str() and drops a repeated or
            // unhashable one, as nska-deserialize does.
            try stream.tag(ValueStream.dictionary, at: path)
            let position = stream.openCount()
            var written = 0
            for (index, key) in keys.enumerated() {
                let mark = stream.output.count
                let keyPath = path.appending(.key("NS.keys")).appending(.index(index))
                let valuePath = path.appending(.key("NS.objects")).appending(.index(index))
                if try field(key, at: keyPath, tracked: false), try field(values[index], at: valuePath, tracked: false) {
                    written += 1
                } else {
                    stream.truncate(to: mark)
                }
            }
            stream.patchCount(written, at: position)
        } else if ["NSArray", "NSMutableArray", "NSSet", "NSMutableSet"].contains(name) && fields["NS.objects"] != nil {
            if case .array(let items)? = fields["NS.objects"] {
                try enter(path)
                defer { depth -= 1 }
                try list(items, at: path.appending(.key("NS.objects")), tracked: false)
            } else if try !field(fields["NS.objects"] ?? .array([]), at: path.appending(.key("NS.objects"))) {
                try stream.tag(ValueStream.list, at: path)
                stream.count(0)
            }
        } else if (name == "NSString" || name == "NSMutableString") && fields["NS.string"] != nil {
            if try !field(fields["NS.string"] ?? .string(""), at: path.appending(.key("NS.string"))) { try stream.string("", at: path) }
        } else if name == "NSDate" && fields["NS.time"] != nil {
            switch fields["NS.time"] {
            case .real(let seconds)? where seconds != -63_114_076_800: try stream.double(seconds, tag: ValueStream.date, at: path)
            case .integer(let seconds)? where seconds.int64Value != -63_114_076_800:
                try stream.double(Double(seconds.int64Value ?? 0), tag: ValueStream.date, at: path)
            default: try stream.string("", at: path)
            }
        } else if name == "NSUUID" && fields["NS.uuidbytes"] != nil {
            if case .data(let bytes)? = fields["NS.uuidbytes"], bytes.count == 16 {
                try stream.string(Self.uuidString(bytes), at: path)
            } else {
                try stream.string("", at: path)
            }
        } else {
            try dictionary(fields, at: path)
        }
    }

    /// `68753A44-4D6F-1226-9C60-0050E4C00067`: what `str(uuid.UUID(bytes=…)).upper()` gives.
    static func uuidString(_ bytes: Data) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The raw graph: `{"$top": {key: UID}, "$objects": [...]}` with each instance's `$class` replaced by its class
    /// name (a string) and every other reference left a UID.
    mutating func describeGraph() throws(ValueStreamError) {
        try stream.tag(ValueStream.dictionary, at: [])
        stream.count(2)
        try stream.string("$top", at: [])
        try stream.plain(.dictionary(graph.top), at: [.key("$top")], depth: 1, maximumDepth: maximumDepth)
        try stream.string("$objects", at: [])
        try stream.tag(ValueStream.list, at: [.key("$objects")])
        stream.count(graph.objects.count)
        for index in graph.objects.indices {
            let path: PropertyListKeyPath = [.key("$objects"), .index(index)]
            if case .instance(let instance) = graph.object(at: index) {
                try stream.tag(ValueStream.dictionary, at: path)
                stream.count(instance.fields.count + 1)
                try stream.string("$class", at: path)
                try stream.string(instance.classDescription.name, at: path)
                for (key, value) in instance.fields {
                    try stream.string(key, at: path)
                    try stream.plain(value, at: path.appending(.key(key)), depth: 2, maximumDepth: maximumDepth)
                }
            } else {
                try stream.plain(graph.objects[index], at: path, depth: 2, maximumDepth: maximumDepth)
            }
        }
    }
}

extension ValueStream {
    /// A value that is not a container, as it is.
    mutating func scalar(_ value: PropertyListValue, at path: PropertyListKeyPath) throws(ValueStreamError) {
        switch value {
        case .string(let text): try string(text, at: path)
        case .integer(let number): try integer(number, at: path)
        case .real(let number): try double(number, at: path)
        case .real32(let number): try double(Double(number), at: path)
        case .bool(let flag): try tag(flag ? Self.true_ : Self.false_, at: path)
        case .date(let date): try double(date.timeIntervalSinceReferenceDate, tag: Self.date, at: path)
        case .data(let data): try bytes(data, at: path)
        case .uid(let uid):
            try tag(Self.uid, at: path)
            word(uid)
        case .array, .dictionary: preconditionFailure("containers are walked by their callers")
        }
    }

    /// A property-list value as it is, UIDs included.
    mutating func plain(_ value: PropertyListValue, at path: PropertyListKeyPath, depth: Int, maximumDepth: Int) throws(ValueStreamError) {
        guard depth <= maximumDepth else {
            throw ValueStreamError(code: "depthLimitExceeded", message: "values nest deeper than \(maximumDepth) levels", keyPath: path)
        }
        switch value {
        case .array(let items):
            try tag(Self.list, at: path)
            count(items.count)
            for (index, item) in items.enumerated() { try plain(item, at: path.appending(.index(index)), depth: depth + 1, maximumDepth: maximumDepth) }
        case .dictionary(let fields):
            try tag(Self.dictionary, at: path)
            count(fields.count)
            for (key, item) in fields {
                try string(key, at: path)
                try plain(item, at: path.appending(.key(key)), depth: depth + 1, maximumDepth: maximumDepth)
            }
        default: try scalar(value, at: path)
        }
    }

    /// Drops what was written after `mark` (an entry left out; its values still count towards the limit).
    mutating func truncate(to mark: Int) { output.removeSubrange(mark...) }
}

extension ErrorBox {
    /// Hands a keyed-archive error to a C caller through `out` (when it is not NULL), which then owns it.
    static func report(_ error: KeyedArchiveError, to out: UnsafeMutablePointer<OpaquePointer?>?) {
        var (byteOffset, line, column): (Int64, Int64, Int64) = (-1, -1, -1)
        switch error.underlying?.location {
        case .byteOffset(let offset)?: byteOffset = Int64(offset)
        case .lineColumn(let atLine, let atColumn)?: (line, column) = (Int64(atLine), Int64(atColumn))
        default: break
        }
        let box = ErrorBox(
            code: error.code.description, description: error.description, message: error.message,
            keyPath: error.keyPath.components.isEmpty ? "" : error.keyPath.description, byteOffset: byteOffset, line: line, column: column)
        out?.pointee = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
    }

    /// Hands a value-stream error to a C caller through `out` (when it is not NULL), which then owns it.
    static func report(_ error: ValueStreamError, to out: UnsafeMutablePointer<OpaquePointer?>?) {
        let keyPath = error.keyPath.components.isEmpty ? "" : error.keyPath.description
        let box = ErrorBox(
            code: error.code, description: keyPath.isEmpty ? error.message : "\(error.message) (at \(keyPath))", message: error.message,
            keyPath: keyPath, byteOffset: -1)
        out?.pointee = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
    }
}

/// The input of a C call as a buffer (empty when `length` is 0, whatever `bytes` is).
private func input(_ bytes: UnsafeRawPointer?, _ length: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: length == 0 ? nil : bytes, count: length)
}

/// Decodes a keyed archive to a value stream. The corresponding C function is `ictkit_keyed_archive_decode`.
@_cdecl("ictkit_keyed_archive_decode")
public func ictkitKeyedArchiveDecode(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ form: Int32, _ maximumValues: Int, _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
    let graph: KeyedArchiveObjectGraph
    do throws(KeyedArchiveError) {
        graph = try KeyedArchiveReader().read(input(bytes, length))
    } catch {
        ErrorBox.report(error, to: errorOut)
        return nil
    }
    let bound = maximumValues > 0 ? maximumValues : KeyedArchiveDescriber.defaultMaximumValues(inputSize: length)
    var describer = KeyedArchiveDescriber(graph: graph, limits: .default, maximumValues: bound)
    do throws(ValueStreamError) {
        if form == 1 { try describer.describeGraph() } else { try describer.describeTop() }
    } catch {
        ErrorBox.report(error, to: errorOut)
        return nil
    }
    return ValuesBox.handle(describer.stream.output)
}

/// The bytes of a value stream. The corresponding C function is `ictkit_values_bytes`.
@_cdecl("ictkit_values_bytes")
public func ictkitValuesBytes(_ values: OpaquePointer, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>? {
    let box = ValuesBox.from(values)
    length?.pointee = box.count
    return UnsafePointer(box.bytes.baseAddress)
}

/// Frees a value stream. The corresponding C function is `ictkit_values_free`.
@_cdecl("ictkit_values_free")
public func ictkitValuesFree(_ values: OpaquePointer?) {
    guard let values else { return }
    Unmanaged<ValuesBox>.fromOpaque(UnsafeRawPointer(values)).release()
}

extension ErrorBox {
    /// Hands a typed-stream error to a C caller through `out` (when it is not NULL), which then owns it.
    static func report(_ error: TypedStreamError, to out: UnsafeMutablePointer<OpaquePointer?>?) {
        let box = ErrorBox(
            code: error.code.description, description: error.description, message: error.message, keyPath: "", byteOffset: Int64(error.byteOffset))
        out?.pointee = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
    }

    /// Hands a NIB-archive error to a C caller through `out` (when it is not NULL), which then owns it.
    static func report(_ error: NIBArchiveError, to out: UnsafeMutablePointer<OpaquePointer?>?) {
        let box = ErrorBox(
            code: error.code.description, description: error.description, message: error.message, keyPath: error.pathText ?? "",
            byteOffset: error.byteOffset.map { Int64($0) } ?? -1)
        out?.pointee = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
    }
}

/// A lossless form (a property list of the module's JSON form) as a value stream.
private func values(of form: PropertyListValue, maximumDepth: Int, errorOut: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    var stream = ValueStream(maximumValues: Int.max)
    do throws(ValueStreamError) {
        try stream.plain(form, at: [], depth: 0, maximumDepth: maximumDepth + 8)
    } catch {
        ErrorBox.report(error, to: errorOut)
        return nil
    }
    return ValuesBox.handle(stream.output)
}

/// Decodes a typed stream to a value stream. The corresponding C function is `ictkit_typedstream_decode`.
@_cdecl("ictkit_typedstream_decode")
public func ictkitTypedStreamDecode(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ form: Int32, _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
    let limits = TypedStreamLimits.default
    let result: PropertyListValue
    do throws(TypedStreamError) {
        let document = try TypedStreamReader(limits: limits).read(input(bytes, length))
        if form == 1 {
            var decoder = TypedStreamFoundationDecoder(document: document)
            // A nib's value stream is some four times its typed stream: room for that is made once.
            var writer = SharedObjectWriter(objectCount: document.objects.count, maximumDepth: limits.maximumDepth * 4, expectedBytes: length * 4)
            do throws(SharedObjectWriter.Failure) {
                try decoder.writeRoot(to: &writer)
            } catch {
                switch error {
                case .decoding(let error): ErrorBox.report(error, to: errorOut)
                case .stream(let error): ErrorBox.report(error, to: errorOut)
                }
                return nil
            }
            return ValuesBox.handle(writer.stream.output)
        }
        result = document.jsonForm
    } catch {
        ErrorBox.report(error, to: errorOut)
        return nil
    }
    return values(of: result, maximumDepth: limits.maximumDepth * 4, errorOut: errorOut)
}

/// Writes a typed stream's decoded root (`TypedStreamFoundationDecoder.writeRoot(to:)`) as a value stream that
/// names each shared object once. The first time an object is met its value is written after a 'D' tag (the next
/// slot); each later time, an 'R' tag and that slot, so the reader makes one object and shares it. An object met
/// again inside itself (a cycle) is written as `{"objectReference": index}`, as its JSON form writes it.
struct SharedObjectWriter: FoundationGraphWriter {
    enum Failure: Error {
        case decoding(TypedStreamError)
        case stream(ValueStreamError)
    }

    let maximumDepth: Int
    /// Unbounded (the decode's own limits bound it), so its calls never throw: they are given no place.
    var stream: ValueStream
    /// Each object's slot (the reader numbers definitions in the order their tags come) once it is written,
    /// -3 - slot while it is being written, -2 before (by object index).
    private var slots: [Int]
    private var nextSlot = 0
    /// The key path of the value being written, for an error's place: the last component is each member's.
    private var path: [PropertyListPathComponent] = []

    init(objectCount: Int, maximumDepth: Int, expectedBytes: Int) {
        self.maximumDepth = maximumDepth
        stream = ValueStream(maximumValues: Int.max, expectedBytes: expectedBytes)
        slots = [Int](repeating: -2, count: objectCount)
    }

    mutating func value(_ value: PropertyListValue) throws(Failure) {
        switch value {
        case .array(let items):
            try beginArray(count: items.count)
            for (index, item) in items.enumerated() {
                self.index(index)
                try self.value(item)
            }
            end()
        case .dictionary(let fields):
            try beginDictionary(count: fields.count)
            for (key, item) in fields {
                try self.key(key)
                try self.value(item)
            }
            end()
        default:
            do { try stream.scalar(value, at: []) } catch { throw .stream(error) }
        }
    }

    /// A container may begin at the current depth.
    private func checkDepth() throws(Failure) {
        guard path.count < maximumDepth else {
            throw .stream(
                ValueStreamError(code: "depthLimitExceeded", message: "values nest deeper than \(maximumDepth) levels", keyPath: PropertyListKeyPath(path)))
        }
    }

    private mutating func begin(_ tag: UInt8, count: Int) throws(Failure) {
        try checkDepth()
        do { try stream.tag(tag, at: []) } catch { throw .stream(error) }
        stream.count(count)
        path.append(.index(0))
    }

    mutating func beginArray(count: Int) throws(Failure) { try begin(ValueStream.list, count: count) }

    mutating func beginDictionary(count: Int) throws(Failure) { try begin(ValueStream.dictionary, count: count) }

    mutating func index(_ index: Int) { path[path.count - 1] = .index(index) }

    mutating func key(_ key: String) throws(Failure) {
        do { try stream.string(key, at: []) } catch { throw .stream(error) }
        path[path.count - 1] = .key(key)
    }

    mutating func end() { path.removeLast() }

    /// A cycle: written as the JSON form writes it.
    mutating func reference(_ index: Int) throws(Failure) {
        // Piece by piece: a nib's views name their window and superview by the hundred, and a dictionary value
        // made for each cost more than the rest of the naming.
        try beginDictionary(count: 1)
        try key("objectReference")
        try value(.integer(PropertyListInteger(Int64(index))))
        end()
    }

    mutating func beginShared(_ index: Int) throws(Failure) -> Bool {
        if slots[index] >= 0 {
            do { try stream.tag(ValueStream.reference, at: []) } catch { throw .stream(error) }
            stream.count(slots[index])
            return false
        }
        do { try stream.tag(ValueStream.definition, at: []) } catch { throw .stream(error) }
        slots[index] = -3 - nextSlot
        nextSlot += 1
        return true
    }

    mutating func endShared(_ index: Int) { slots[index] = -3 - slots[index] }

    mutating func failure(_ error: TypedStreamError) -> Failure { .decoding(error) }

    /// `{"nil": true}` as the stream has it: a one-entry dictionary, key "nil", true.
    private static let null: [UInt8] = [ValueStream.dictionary, 1, 0, 0, 0, ValueStream.string, 3, 0, 0, 0] + Array("nil".utf8) + [ValueStream.true_]

    mutating func null() throws(Failure) {
        try checkDepth()
        do { try stream.encoded(Self.null, count: 3, at: []) } catch { throw .stream(error) }
    }
}

/// Decodes a NIB archive to a value stream. The corresponding C function is `ictkit_nib_archive_decode`.
@_cdecl("ictkit_nib_archive_decode")
public func ictkitNIBArchiveDecode(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ form: Int32, _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
    let file: NIBArchiveFile
    do throws(NIBArchiveError) {
        file = try NIBArchiveReader().read(input(bytes, length))
    } catch {
        ErrorBox.report(error, to: errorOut)
        return nil
    }
    return values(of: file.jsonForm, maximumDepth: 16, errorOut: errorOut)
}
