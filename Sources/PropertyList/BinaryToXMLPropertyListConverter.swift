extension XMLPropertyListWriter {
    /// Converts a binary property list to XML without building its value:
    /// objects are read from the mapped file and written out as they are
    /// reached, in pieces of about `chunkSize` bytes handed to `sink`. The
    /// output is byte for byte what `encode(_:)` writes for the value
    /// `BinaryPropertyListReader` reads from the same file.
    ///
    /// Before anything is handed over, the values the file expands to are
    /// counted from its references (each use of a shared object counted), so
    /// a file over the object-count limit is refused with nothing written.
    /// Nothing is held but the path being written and two bits per object,
    /// so memory stays small whatever the file's size. A problem found part
    /// way is thrown after the pieces before it were handed over: a caller
    /// writing to a file should write to a temporary one and keep it only on
    /// success.
    ///
    /// - Throws: `PropertyListError` for the input (byte offset and key path,
    ///   cycles and limits as the reader reports them), for a value XML cannot
    ///   carry, or whatever `sink` throws.
    public func encode(
        binaryPropertyList file: MappedFile, limits: PropertyListLimits = .default, chunkSize: Int = 1 << 20,
        to sink: (UnsafeRawBufferPointer) throws(PropertyListError) -> Void
    ) throws(PropertyListError) {
        try withExtendedLifetime(file) { () throws(PropertyListError) in
            try withoutActuallyEscaping(sink) { (sink) throws(PropertyListError) in
                let scanner = try BinaryPropertyListScanner(file.bytes, limits: limits)
                var converter = try BinaryToXMLPropertyListConverter(
                    scanner: scanner, limits: limits, encoder: XMLPropertyListEncoder(sink: sink, chunkSize: chunkSize))
                defer { converter.encoder.output.deallocate() }
                converter.encoder.output.append(contentsOf: XMLPropertyListEncoder.prologue.utf8)
                do throws(PropertyListError) {
                    try converter.convert(scanner.topObject, depth: 0)
                } catch {
                    throw converter.locating(error)
                }
                converter.encoder.output.append("</plist>\n")
                try converter.encoder.flush()
            }
        }
    }
}

/// Walks a binary property list's objects from the top and writes each as
/// XML as it is reached.
struct BinaryToXMLPropertyListConverter {
    let scanner: BinaryPropertyListScanner
    let limits: PropertyListLimits
    var encoder: XMLPropertyListEncoder
    /// Decodes the scalars and keys; shared objects are simply read again.
    private var decoder: BinaryPropertyListDecoder
    /// One bit per object: set while the object is being written, to find cycles.
    private var onPath: [UInt64]

    /// Makes a converter, after checking that the top object's expansion is
    /// within the object-count limit, so such a file is refused before a
    /// byte is written.
    ///
    /// - Throws: `limitExceeded(.objectCount)` (see `BinaryPropertyListExpansion`).
    init(scanner: BinaryPropertyListScanner, limits: PropertyListLimits, encoder: XMLPropertyListEncoder) throws(PropertyListError) {
        self.scanner = scanner
        self.limits = limits
        self.encoder = encoder
        let sharing = BinaryPropertyListSharedObjects(allObjectsOf: scanner)
        try BinaryPropertyListExpansion.check(scanner.topObject, depth: 0, scanner: scanner, sharing: sharing, limits: limits)
        decoder = BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: .none)
        onPath = [UInt64](repeating: 0, count: (scanner.objectCount + 63) / 64)
    }

    /// `error` with the path being written in front of its key path, for an
    /// error about the input (the encoder's own errors carry the full path).
    func locating(_ error: PropertyListError) -> PropertyListError {
        guard error.location != .none else { return error }
        var located = error
        located.keyPath.components.insert(contentsOf: encoder.path, at: 0)
        return located
    }

    mutating func convert(_ object: Int, depth: Int) throws(PropertyListError) {
        let offset = try scanner.offset(ofObject: object)
        let kind = scanner.bytes[offset] >> 4
        if kind == 0x5 {
            // An ASCII string is escaped straight from the file, as no Swift
            // string is needed to write it; its bytes are checked as the reader does.
            let header = try scanner.header(at: offset)
            try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 1, objectOffset: offset, what: "string")
            let bytes = UnsafeRawBufferPointer(rebasing: scanner.bytes[header.payload..<(header.payload + header.length)])
            if let bad = bytes.firstIndex(where: { $0 >= 0x80 }) {
                throw PropertyListError(
                    .invalidString, at: .byteOffset(header.payload + bad),
                    "byte 0x\(String(bytes[bad], radix: 16)) in an ASCII string (the string object starts at byte \(offset))")
            }
            try encoder.appendString(utf8: bytes, indent: depth)
            return
        }
        if kind == 0x4 {
            // Data is written as base64 straight from the file, with no copy.
            let header = try scanner.header(at: offset)
            try scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 1, objectOffset: offset, what: "data")
            try encoder.appendData(UnsafeRawBufferPointer(rebasing: scanner.bytes[header.payload..<(header.payload + header.length)]), indent: depth)
            return
        }
        guard kind >= 0xA, kind <= 0xD else {
            try encoder.append(try decoder.decode(object, depth: depth), indent: depth)
            return
        }
        let header = try scanner.header(at: offset)
        let isDictionary = kind == 0xD
        try scanner.checkExtent(
            payload: header.payload, count: header.length,
            itemSize: (isDictionary ? 2 : 1) * scanner.referenceSize,
            objectOffset: offset, what: isDictionary ? "dictionary" : "array")
        guard depth < limits.maximumDepth else {
            throw PropertyListError(
                .limitExceeded(.depth), at: .byteOffset(offset),
                "containers nest more than \(limits.maximumDepth) deep")
        }
        let word = object >> 6, bit = UInt64(1) << UInt64(object & 63)
        guard onPath[word] & bit == 0 else {
            throw PropertyListError(.cycle, at: .byteOffset(offset), "object \(object) contains itself")
        }
        onPath[word] |= bit
        defer { onPath[word] &= ~bit }
        if isDictionary {
            try convertDictionary(header: header, depth: depth)
        } else {
            try encoder.flushIfFull()
            encoder.appendIndent(depth)
            encoder.openContainer(isDictionary: false, isEmpty: header.length == 0)
            guard header.length > 0 else { return }
            for index in 0..<header.length {
                let child = try scanner.reference(at: header.payload + index * scanner.referenceSize)
                encoder.path.append(.index(index))
                try convert(child, depth: depth + 1)
                encoder.path.removeLast()
            }
            encoder.closeContainer(isDictionary: false, indent: depth)
        }
    }

    private mutating func convertDictionary(header: (marker: UInt8, length: Int, payload: Int), depth: Int) throws(PropertyListError) {
        let count = header.length
        var keys: ContiguousArray<String> = []
        keys.reserveCapacity(count)  // Bounded: checkExtent proved the references are in the file.
        for index in 0..<count {
            let keyObject = try scanner.reference(at: header.payload + index * scanner.referenceSize)
            let keyValue = try decoder.decode(keyObject, depth: depth + 1)
            guard case .string(let key) = keyValue else {
                throw PropertyListError(
                    .invalidKey, at: .byteOffset(scanner.rawOffset(ofObject: keyObject)),
                    "dictionary key \(index) is \(keyValue.kindNameWithArticle), not a string")
            }
            keys.append(key)
        }
        let valuesStart = header.payload + count * scanner.referenceSize
        if scanner.hasDuplicate(keys, keyReferencesAt: header.payload) {
            // Rare, and where the reader keeps the first position and the last
            // value: write what it would read.
            var dictionary = [String: Int]()
            var order: [String] = []
            for index in 0..<count {
                if dictionary.updateValue(index, forKey: keys[index]) == nil { order.append(keys[index]) }
            }
            try encoder.flushIfFull()
            encoder.appendIndent(depth)
            encoder.openContainer(isDictionary: true, isEmpty: false)
            for key in order {
                encoder.path.append(.key(key))
                try encoder.appendKey(key, indent: depth + 1)
                try convert(try scanner.reference(at: valuesStart + dictionary[key]! * scanner.referenceSize), depth: depth + 1)
                encoder.path.removeLast()
            }
            encoder.closeContainer(isDictionary: true, indent: depth)
            return
        }
        try encoder.flushIfFull()
        encoder.appendIndent(depth)
        encoder.openContainer(isDictionary: true, isEmpty: count == 0)
        guard count > 0 else { return }
        for index in 0..<count {
            encoder.path.append(.key(keys[index]))
            try encoder.appendKey(keys[index], indent: depth + 1)
            try convert(try scanner.reference(at: valuesStart + index * scanner.referenceSize), depth: depth + 1)
            encoder.path.removeLast()
        }
        encoder.closeContainer(isDictionary: true, indent: depth)
    }
}
