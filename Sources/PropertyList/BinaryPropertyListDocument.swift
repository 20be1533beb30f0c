#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// @unchecked Sendable: every stored property is a `let`. `scanner` holds a
// pointer into `owner`'s bytes (a `MappedFile`, itself Sendable, or a
// private `OwnedBytes` copy), which are written only in their init and
// freed only when the last document holding `owner` goes; readers only read.
/// A binary property list opened for random access: one value can be read by
/// its key path without decoding the rest of the file.
///
/// Opening checks the header and the trailer only: each offset-table entry
/// is checked when it is used, so opening costs the same for any file size.
/// `value(at:)` then walks from the top object through the dictionaries and
/// arrays the path names, comparing keys in place and decoding only the
/// value it returns.
public struct BinaryPropertyListDocument: @unchecked Sendable {
    private let owner: AnyObject
    private let scanner: BinaryPropertyListScanner
    /// The limits applied when decoding.
    public let limits: PropertyListLimits

    /// Opens the mapped file for random access.
    ///
    /// - Throws: `PropertyListError` when the header or trailer is invalid.
    public init(file: MappedFile, limits: PropertyListLimits = .default) throws(PropertyListError) {
        owner = file
        scanner = try BinaryPropertyListScanner(file.bytes, limits: limits, checkingAllOffsets: false)
        self.limits = limits
    }

    /// Opens a copy of `data` for random access.
    ///
    /// - Throws: `PropertyListError` when the header or trailer is invalid.
    public init(data: Data, limits: PropertyListLimits = .default) throws(PropertyListError) {
        let copy = OwnedBytes(data)
        owner = copy
        scanner = try BinaryPropertyListScanner(
            UnsafeRawBufferPointer(rebasing: copy.bytes[0..<data.count]), limits: limits,
            checkingAllOffsets: false)
        self.limits = limits
    }

    /// Decodes the whole property list, checking the whole offset table first.
    ///
    /// - Throws: `PropertyListError`, as `BinaryPropertyListReader.read(_:)`.
    public func decode() throws(PropertyListError) -> PropertyListValue {
        try withExtendedLifetime(owner) { () throws(PropertyListError) in
            try BinaryPropertyListReader(limits: limits).read(scanner.bytes)
        }
    }

    /// The value at `keyPath`, or nil when a key along the path is absent or
    /// an index is out of range. Only the keys compared on the way and the
    /// returned value are decoded. As in `plutil`'s syntax (and
    /// `PropertyListValue.value(at:)`), a key that is a decimal integer
    /// selects an element when applied to an array. Before the value is
    /// decoded, the objects it holds are walked once to find the shared
    /// ones and count its expansion against `maximumObjectCount`; each shared
    /// object is then decoded once.
    ///
    /// - Throws: `PropertyListError` when the path runs through a value that
    ///   is not a container of the right kind, or the bytes on the way are
    ///   invalid; `limitExceeded(.objectCount)` when the value expands past the limit.
    public func value(at keyPath: PropertyListKeyPath) throws(PropertyListError) -> PropertyListValue? {
        try withExtendedLifetime(owner) { () throws(PropertyListError) -> PropertyListValue? in
            var keyDecoder = BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: .none)
            var object = scanner.topObject
            var walked = PropertyListKeyPath()
            for component in keyPath.components {
                let offset = try scanner.offset(ofObject: object)
                let kind = scanner.bytes[offset] >> 4
                let isArray = kind == 0xA || kind == 0xB || kind == 0xC
                switch component {
                case .key(let wanted) where isArray && Int(wanted) != nil:
                    // plutil's syntax: a decimal key applied to an array is an index.
                    guard let next = try element(Int(wanted) ?? 0, ofArrayAt: offset) else { return nil }
                    object = next
                case .key(let wanted):
                    guard kind == 0xD else { throw notAContainer(offset, walked, expected: "a dictionary") }
                    guard let next = try childOfDictionary(at: offset, key: wanted, decoder: &keyDecoder, walked: walked) else { return nil }
                    object = next
                case .index(let wanted):
                    guard isArray else { throw notAContainer(offset, walked, expected: "an array") }
                    guard let next = try element(wanted, ofArrayAt: offset) else { return nil }
                    object = next
                }
                walked = walked.appending(component)
            }
            do throws(PropertyListError) {
                // The value's objects are decoded once each, shared ones
                // reused, after a count of what they expand to.
                let depth = walked.components.count
                let sharing = BinaryPropertyListSharedObjects(reachableFrom: object, of: scanner)
                try BinaryPropertyListExpansion.check(object, depth: depth, scanner: scanner, sharing: sharing, limits: limits)
                var decoder = BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: sharing)
                return try decoder.decode(object, depth: depth)
            } catch {
                var located = error
                located.keyPath.components.insert(contentsOf: walked.components, at: 0)
                throw located
            }
        }
    }

    /// The object number of element `index` of the array (or set) at
    /// `offset`, or nil when there is no such element.
    private func element(_ index: Int, ofArrayAt offset: Int) throws(PropertyListError) -> Int? {
        let header = try scanner.header(at: offset)
        try scanner.checkExtent(
            payload: header.payload, count: header.length, itemSize: scanner.referenceSize,
            objectOffset: offset, what: "array")
        guard index >= 0, index < header.length else { return nil }
        return try scanner.reference(at: header.payload + index * scanner.referenceSize)
    }

    /// The byte offset of the value at `keyPath`; when a key along the path
    /// is absent or an index out of range, of the deepest value on the way.
    /// Decodes only the keys compared on the way.
    ///
    /// - Throws: `PropertyListError` when the path runs through a value that
    ///   is not a container of the right kind, or the bytes on the way are invalid.
    public func offset(of keyPath: PropertyListKeyPath) throws(PropertyListError) -> Int {
        try withExtendedLifetime(owner) { () throws(PropertyListError) -> Int in
            var decoder = BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: .none)
            var offset = try scanner.offset(ofObject: scanner.topObject)
            var walked = PropertyListKeyPath()
            for component in keyPath.components {
                let kind = scanner.bytes[offset] >> 4
                let next: Int?
                switch component {
                case .key(let wanted):
                    guard kind == 0xD else { return offset }
                    next = try childOfDictionary(at: offset, key: wanted, decoder: &decoder, walked: walked)
                case .index(let wanted):
                    guard kind == 0xA || kind == 0xB || kind == 0xC else { return offset }
                    let header = try scanner.header(at: offset)
                    try scanner.checkExtent(
                        payload: header.payload, count: header.length, itemSize: scanner.referenceSize,
                        objectOffset: offset, what: "array")
                    next = wanted >= 0 && wanted < header.length ? try scanner.reference(at: header.payload + wanted * scanner.referenceSize) : nil
                }
                guard let next else { return offset }
                offset = try scanner.offset(ofObject: next)
                walked = walked.appending(component)
            }
            return offset
        }
    }

    private func childOfDictionary(
        at offset: Int, key wanted: String, decoder: inout BinaryPropertyListDecoder,
        walked: PropertyListKeyPath
    ) throws(PropertyListError) -> Int? {
        let header = try scanner.header(at: offset)
        try scanner.checkExtent(
            payload: header.payload, count: header.length, itemSize: 2 * scanner.referenceSize,
            objectOffset: offset, what: "dictionary")
        let wantedUTF8 = Array(wanted.utf8)
        let wantedIsASCII = wantedUTF8.allSatisfy { $0 < 0x80 }
        var found: Int?
        for index in 0..<header.length {
            let keyObject = try scanner.reference(at: header.payload + index * scanner.referenceSize)
            let matches: Bool
            if wantedIsASCII, let ascii = try asciiKey(keyObject) {
                // The common case: an ASCII key compared as bytes where it lies.
                matches =
                    wantedUTF8.count == ascii.count
                    && wantedUTF8.withUnsafeBytes { wantedBytes in
                        // Safe: an empty key matches on the counts alone.
                        ascii.isEmpty || rawBytesEqual(wantedBytes.baseAddress!, ascii.baseAddress!, count: ascii.count)
                    }
            } else if try scanner.bytes[scanner.offset(ofObject: keyObject)] >> 4 == 0x6,
                case .string(let key) = try decoder.decode(keyObject, depth: 0)
            {
                // A UTF-16 string: decoding it reads no other object. A key
                // of any other kind (the whole read refuses it) matches nothing.
                matches = key == wanted
            } else {
                matches = false
            }
            if matches {
                // Later duplicates win, as when the whole file is read.
                found = try scanner.reference(at: header.payload + (header.length + index) * scanner.referenceSize)
            }
        }
        return found
    }

    /// The bytes of object `object` when it is an ASCII string (marker 0x5),
    /// checked to lie in the object area; nil for any other kind.
    private func asciiKey(_ object: Int) throws(PropertyListError) -> UnsafeRawBufferPointer? {
        let offset = try scanner.offset(ofObject: object)
        guard scanner.bytes[offset] >> 4 == 0x5 else { return nil }
        let header = try scanner.header(at: offset)
        try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 1, objectOffset: offset, what: "string")
        return UnsafeRawBufferPointer(rebasing: scanner.bytes[header.payload..<(header.payload + header.length)])
    }

    private func notAContainer(_ offset: Int, _ walked: PropertyListKeyPath, expected: String) -> PropertyListError {
        let marker = scanner.bytes[offset]
        return PropertyListError(
            .unexpectedElement, at: .byteOffset(offset), keyPath: walked,
            "the value here (marker 0x\(String(marker, radix: 16))) is not \(expected)")
    }
}

/// A private copy of some bytes, freed with its owner.
private final class OwnedBytes {
    let bytes: UnsafeMutableRawBufferPointer

    init(_ data: Data) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 8)
        data.copyBytes(to: bytes)
    }

    deinit { bytes.deallocate() }
}
