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
                // The converter makes its encoder, and the encoder's buffer, only once the file passed the
                // checks that can refuse it (a buffer made before was lost when they did).
                var converter = try BinaryToXMLPropertyListConverter(scanner: scanner, limits: limits, sink: sink, chunkSize: chunkSize)
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
    /// The way from the top to the value being written, made into a key
    /// path only when an error needs one.
    private var trail: [Step] = []
    /// The keys of the dictionaries being written, each stored as an ASCII
    /// string: its object and its bytes, innermost dictionary's last.
    private var asciiKeys: [(object: Int, start: Int, count: Int)] = []

    /// One step of `trail`: an array index, or a key as its string object
    /// (whose bytes are written straight from the file) or as a string.
    private enum Step {
        case index(Int)
        case keyObject(Int)
        case key(String)
    }

    /// Makes a converter writing to `sink` in pieces of about `chunkSize`
    /// bytes, after checking that the top object's expansion is within the
    /// object-count limit, so such a file is refused before a byte is
    /// written. Its encoder's buffer, made last, is the caller's to free
    /// (`encoder.output.deallocate()`) once the converter is made.
    ///
    /// - Throws: `limitExceeded(.objectCount)` (see `BinaryPropertyListExpansion`).
    init(
        scanner: BinaryPropertyListScanner, limits: PropertyListLimits,
        sink: @escaping (UnsafeRawBufferPointer) throws(PropertyListError) -> Void, chunkSize: Int
    ) throws(PropertyListError) {
        self.scanner = scanner
        self.limits = limits
        let sharing = BinaryPropertyListSharedObjects(allObjectsOf: scanner)
        try BinaryPropertyListExpansion.check(scanner.topObject, depth: 0, scanner: scanner, sharing: sharing, limits: limits)
        decoder = BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: .none)
        onPath = [UInt64](repeating: 0, count: (scanner.objectCount + 63) / 64)
        encoder = XMLPropertyListEncoder(sink: sink, chunkSize: chunkSize)
    }

    /// `error` with the path being written in front of its key path, for an
    /// error about the input (the encoder's own errors are given the path
    /// where they are thrown; the sink's have none).
    func locating(_ error: PropertyListError) -> PropertyListError {
        guard error.location != .none else { return error }
        return withPath(error)
    }

    /// `error` with the path being written in front of its key path.
    private func withPath(_ error: PropertyListError) -> PropertyListError {
        var keys = decoder
        var located = error
        located.keyPath.components.insert(
            contentsOf: trail.map { step in
                switch step {
                case .index(let index): return .index(index)
                case .key(let key): return .key(key)
                case .keyObject(let object):
                    // Its bytes were checked to be an ASCII string's before it was written.
                    return .key((try? keys.decode(object, depth: 0))?.stringValue ?? "")
                }
            }, at: 0)
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
            try scanner.checkASCII(header.payload, count: header.length, objectOffset: offset)
            try encoder.appendString(
                utf8: UnsafeRawBufferPointer(rebasing: scanner.bytes[header.payload..<(header.payload + header.length)]), indent: depth)
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
            // A scalar is read here; a UTF-16 string by the decoder.
            let value =
                kind == 0x6
                ? try decoder.decode(object, depth: depth)
                : PropertyListValue(try scanner.scalar(marker: scanner.bytes[offset], at: offset))
            // With nothing left due to the sink, what `append` throws is about
            // the value (a date XML cannot carry), and it gets the path here.
            try encoder.flushIfFull()
            do throws(PropertyListError) {
                try encoder.append(value, indent: depth)
            } catch {
                throw withPath(error)
            }
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
                trail.append(.index(index))
                try convert(child, depth: depth + 1)
                trail.removeLast()
            }
            encoder.closeContainer(isDictionary: false, indent: depth)
        }
    }

    private mutating func convertDictionary(header: (marker: UInt8, length: Int, payload: Int), depth: Int) throws(PropertyListError) {
        let count = header.length
        let valuesStart = header.payload + count * scanner.referenceSize
        let first = asciiKeys.count
        if count > 0, gatherASCIIKeys(count: count, keyReferencesAt: header.payload) {
            // The common dictionary: its keys stored as ASCII strings, no two
            // equal, and written straight from the file.
            try encoder.flushIfFull()
            encoder.appendIndent(depth)
            encoder.openContainer(isDictionary: true, isEmpty: false)
            for index in 0..<count {
                let key = asciiKeys[first + index]
                trail.append(.keyObject(key.object))
                try encoder.appendKey(
                    utf8: UnsafeRawBufferPointer(rebasing: scanner.bytes[key.start..<(key.start + key.count)]), indent: depth + 1)
                try convert(try scanner.reference(at: valuesStart + index * scanner.referenceSize), depth: depth + 1)
                trail.removeLast()
            }
            encoder.closeContainer(isDictionary: true, indent: depth)
            asciiKeys.removeSubrange(first...)
            return
        }
        asciiKeys.removeSubrange(first...)
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
        if scanner.hasDuplicate(keys, keyReferencesAt: header.payload) {
            // Rare, and where the reader keeps the first position and the last
            // value: write what it would read.
            var dictionary = [String: Int]()
            var order: [String] = []
            for index in 0..<count {
                if dictionary.updateValue(index, forKey: keys[index]) == nil { order.append(keys[index]) }
            }
            // The values given up for a later one are still read, as the reader reads them, so a bad one is
            // refused here as there.
            for index in 0..<count where dictionary[keys[index]] != index {
                trail.append(.key(keys[index]))
                _ = try decoder.decode(try scanner.reference(at: valuesStart + index * scanner.referenceSize), depth: depth + 1)
                trail.removeLast()
            }
            try encoder.flushIfFull()
            encoder.appendIndent(depth)
            encoder.openContainer(isDictionary: true, isEmpty: false)
            for key in order {
                trail.append(.key(key))
                try encoder.appendKey(key, indent: depth + 1)
                try convert(try scanner.reference(at: valuesStart + dictionary[key]! * scanner.referenceSize), depth: depth + 1)
                trail.removeLast()
            }
            encoder.closeContainer(isDictionary: true, indent: depth)
            return
        }
        try encoder.flushIfFull()
        encoder.appendIndent(depth)
        encoder.openContainer(isDictionary: true, isEmpty: count == 0)
        guard count > 0 else { return }
        for index in 0..<count {
            trail.append(.key(keys[index]))
            try encoder.appendKey(keys[index], indent: depth + 1)
            try convert(try scanner.reference(at: valuesStart + index * scanner.referenceSize), depth: depth + 1)
            trail.removeLast()
        }
        encoder.closeContainer(isDictionary: true, indent: depth)
    }

    /// Appends to `asciiKeys` the `count` keys whose references start at
    /// `payload`, when each is an ASCII string, well formed, and no two are
    /// equal (which ascending keys show at once; others are compared by
    /// their bytes); false at the first that is not, or at two equal keys,
    /// and the caller decodes the keys to find out what they are.
    private mutating func gatherASCIIKeys(count: Int, keyReferencesAt payload: Int) -> Bool {
        // Safe: the scanner's bytes hold at least a header, an object and a trailer.
        let base = scanner.bytes.baseAddress!
        let first = asciiKeys.count
        asciiKeys.reserveCapacity(first + count)
        var ascending = true
        for index in 0..<count {
            guard let object = try? scanner.reference(at: payload + index * scanner.referenceSize),
                let offset = try? scanner.offset(ofObject: object), scanner.bytes[offset] >> 4 == 0x5,
                let header = try? scanner.header(at: offset),
                (try? scanner.checkExtent(payload: header.payload, count: header.length, itemSize: 1, objectOffset: offset, what: "string"))
                    != nil,
                (try? scanner.checkASCII(header.payload, count: header.length, objectOffset: offset)) != nil
            else { return false }
            let key = (object: object, start: header.payload, count: header.length)
            if ascending, index > 0 {
                let earlier = asciiKeys[asciiKeys.count - 1]
                ascending = BinaryPropertyListScanner.bytes((earlier.start, earlier.count), precede: (key.start, key.count), in: base)
            }
            asciiKeys.append(key)
        }
        if ascending { return true }
        // Keys in another order (CoreFoundation writes a dictionary's in its hash order): equal
        // ASCII keys are equal bytes.
        guard count <= 16 else { return scanner.hasDuplicateASCIIKey(count: count, keyReferencesAt: payload) == false }
        for later in (first + 1)..<asciiKeys.count {
            let key = asciiKeys[later]
            for earlier in first..<later where asciiKeys[earlier].count == key.count {
                if rawBytesEqual(base + asciiKeys[earlier].start, base + key.start, count: key.count) { return false }
            }
        }
        return true
    }
}
