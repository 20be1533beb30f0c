/// The objects of a binary property list that are referenced more than once.
///
/// A shared object is decoded once and its value reused; and as every cycle
/// passes through a shared object (the top object counts as referenced
/// once), marking those in progress is enough to find cycles. Found from the
/// references alone, without decoding anything: one bit per object and a
/// counter per 64 objects.
struct BinaryPropertyListSharedObjects {
    /// One bit per object: set when the object is referenced more than once.
    private var bits: [UInt64] = []
    /// For each 64-object word of `bits`, the shared objects before it: an
    /// object's slot is that count plus the set bits below it.
    private var before: [UInt32] = []
    /// How many objects are shared: the slots are `0..<count`.
    private(set) var count = 0
    /// The references met (the top object's counted as one): with no
    /// container shared, no value can expand to more than this many values.
    private(set) var referenceCount = 0
    /// Whether an array, set or dictionary is among the shared objects: only
    /// then can the values expand past `referenceCount`.
    private(set) var sharesAContainer = false
    /// The most bytes one shared string or data object stores: with no
    /// container shared, the strings and data expand to no more than the
    /// object area plus this for each reference.
    private(set) var largestSharedBytes = 0

    /// No object treated as shared: each is decoded at every use.
    static let none = BinaryPropertyListSharedObjects()

    private init() {}

    /// The shared objects among all the file's objects, from one pass over
    /// the offset table in file order. Needs a scanner that checked all offsets.
    init(allObjectsOf scanner: BinaryPropertyListScanner) {
        // Loops written out, the marking inlined: this pass runs before every
        // whole-file read, and a closure call per reference cost 5 % of a
        // keyed archive's decode (bench row g).
        let objectCount = scanner.objectCount
        var marks = ReferenceMarks(objectCount: objectCount)
        let bytes = scanner.bytes
        let referenceSize = scanner.referenceSize
        marks.withBuffers { seen, twice, references in
            _ = Self.mark(scanner.topObject, seen, twice, &references)
            for object in 0..<objectCount {
                guard let found = scanner.referencesIfContainer(at: scanner.rawOffset(ofObject: object)) else { continue }
                // Safe: referencesIfContainer checked they all fit.
                BinaryPropertyListScanner.forEachBigEndian(bytes, at: found.start, count: found.count, size: referenceSize) {
                    target in
                    if target < UInt64(objectCount) { _ = Self.mark(Int(target), seen, twice, &references) }
                }
            }
        }
        self.init(marks, of: scanner)
    }

    /// The shared objects among those reachable from `root`, found by a walk
    /// that reads only those objects: for a value taken out of a large file.
    /// Each offset is checked as it is used; an object whose offset is bad
    /// is skipped, as the decoder reports it when it reaches it.
    init(reachableFrom root: Int, of scanner: BinaryPropertyListScanner) {
        var marks = ReferenceMarks(objectCount: scanner.objectCount)
        marks.withBuffers { seen, twice, references in
            var pending = [root]
            _ = Self.mark(root, seen, twice, &references)
            while let object = pending.popLast() {
                guard let offset = try? scanner.offset(ofObject: object) else { continue }
                scanner.forEachReference(ofObjectAt: offset) { target in
                    if Self.mark(target, seen, twice, &references) { pending.append(target) }
                }
            }
        }
        self.init(marks, of: scanner)
    }

    /// One bit per object for "referenced", one for "referenced again", and
    /// the references met.
    private struct ReferenceMarks {
        var seen: [UInt64]
        var twice: [UInt64]
        var references = 0

        init(objectCount: Int) {
            let words = (objectCount + 63) / 64
            seen = [UInt64](repeating: 0, count: words)
            twice = seen
        }

        mutating func withBuffers(
            _ body: (UnsafeMutableBufferPointer<UInt64>, UnsafeMutableBufferPointer<UInt64>, inout Int) -> Void
        ) {
            var references = self.references
            seen.withUnsafeMutableBufferPointer { seen in
                twice.withUnsafeMutableBufferPointer { twice in body(seen, twice, &references) }
            }
            self.references = references
        }
    }

    /// Records one reference to `target` (below the object count); true at its first.
    @inline(__always)
    private static func mark(
        _ target: Int, _ seen: UnsafeMutableBufferPointer<UInt64>, _ twice: UnsafeMutableBufferPointer<UInt64>,
        _ references: inout Int
    ) -> Bool {
        references &+= 1  // Safe: at most the file's size in references.
        // Safe: target < objectCount, so its word < words.
        let word = target &>> 6, bit = UInt64(1) &<< UInt64(target & 63)
        let first = seen[word] & bit == 0
        twice[word] |= seen[word] & bit
        seen[word] |= bit
        return first
    }

    /// Keeps the objects marked more than once.
    private init(_ marks: ReferenceMarks, of scanner: BinaryPropertyListScanner) {
        let twice = marks.twice
        var before = [UInt32](repeating: 0, count: twice.count)
        var total: UInt32 = 0
        for word in 0..<twice.count {
            before[word] = total
            total &+= UInt32(twice[word].nonzeroBitCount)  // At most objectCount, which fits: it came from the file.
        }
        bits = twice
        referenceCount = marks.references
        (sharesAContainer, largestSharedBytes) = Self.survey(twice, of: scanner)
        self.before = before
        count = Int(total)
    }

    /// Whether any object whose bit is set is an array, set or dictionary,
    /// and the most bytes one of them that is a string or data stores.
    private static func survey(_ bits: [UInt64], of scanner: BinaryPropertyListScanner) -> (container: Bool, largestBytes: Int) {
        var largest = 0
        for (word, value) in bits.enumerated() where value != 0 {
            var rest = value
            while rest != 0 {
                let object = word &* 64 &+ rest.trailingZeroBitCount  // Safe: below objectCount.
                rest &= rest &- 1
                // An object whose offset cannot be had is counted as a container: the walk then finds out.
                guard let offset = try? scanner.offset(ofObject: object) else { return (true, largest) }
                if scanner.referencesIfContainer(at: offset) != nil { return (true, largest) }
                largest = max(largest, scanner.storedBytes(ofObjectAt: offset))
            }
        }
        return (false, largest)
    }

    /// The slot of `object`, or nil when it is referenced once.
    @inline(__always)
    func slot(_ object: Int) -> Int? {
        guard !bits.isEmpty else { return nil }
        let word = object &>> 6
        let bit = UInt64(1) &<< UInt64(object & 63)
        let bits = self.bits[word]
        guard bits & bit != 0 else { return nil }
        return Int(before[word]) &+ (bits & (bit &- 1)).nonzeroBitCount
    }
}

extension BinaryPropertyListScanner {
    /// The bytes the string or data object at `offset` stores (a UTF-16
    /// string two per unit), at most the object area's size; 0 for any other
    /// kind, or a length that cannot be read (which the decoder reports).
    @inline(__always)
    func storedBytes(ofObjectAt offset: Int) -> Int {
        let marker = bytes[offset]
        let kind = marker >> 4
        guard kind == 0x4 || kind == 0x5 || kind == 0x6, let header = try? lengthAndPayload(marker: marker, at: offset) else {
            return 0
        }
        // Safe: lengthAndPayload checked the length is at most objectsEnd, so twice it fits.
        return min(kind == 0x6 ? header.length &* 2 : header.length, objectsEnd)
    }

    /// Calls `body` with each object reference (below the object count) of
    /// the array, set or dictionary at `offset`, in file order (a
    /// dictionary's keys, then its values); does nothing for any other kind,
    /// or when the references do not fit in the object area. A quick look
    /// for the passes that only follow references: problems are reported by
    /// the decoder when it reaches the object.
    @inline(__always)
    func forEachReference(ofObjectAt offset: Int, _ body: (Int) -> Void) {
        guard let references = referencesIfContainer(at: offset) else { return }
        var position = references.start
        for _ in 0..<references.count {
            let target = Self.readBigEndian(bytes, at: position, size: referenceSize)
            if target < UInt64(objectCount) { body(Int(target)) }
            position &+= referenceSize  // Safe: referencesIfContainer checked they all fit.
        }
    }
}

/// How many values, and how many bytes of strings and data, an object of a
/// binary property list expands to when it is decoded or written out:
/// itself, and the expansion of each reference it holds (a dictionary's keys
/// and values), every use of a shared object counted again. Those are the
/// counts `BinaryPropertyListDecoder` reaches, found here from the
/// references alone, each shared object's counts kept: one visit per object,
/// so a file of a few hundred bytes whose arrays hold one another twice
/// over, 60 levels deep, or a 65 KB file whose 4 million references reach
/// one 64 KB data object, is refused in microseconds, before anything is
/// decoded or written.
struct BinaryPropertyListExpansion {
    let scanner: BinaryPropertyListScanner
    let sharing: BinaryPropertyListSharedObjects
    let limits: PropertyListLimits
    /// Each shared object's count of values once known; 0 before it is counted, -1 while it is.
    private var counts: [Int]
    /// Each shared object's bytes of strings and data, once its count is known.
    private var sizes: [Int]

    /// Throws `limitExceeded(.objectCount)` when `object`, met at `depth`,
    /// expands to more than `limits.maximumObjectCount` values, and
    /// `limitExceeded(.expandedSize)` when its strings and data expand to
    /// more than `limits.maximumExpandedSize` bytes.
    ///
    /// The count stops where the decoder stops with an error of its own: it
    /// skips references to no object and does not go below the depth limit
    /// or round a cycle, so those are reported, at their place, by the
    /// decoder. The error is at the byte of the container whose count first
    /// goes over the limit, with the key path from `object` to it.
    static func check(
        _ object: Int, depth: Int, scanner: BinaryPropertyListScanner, sharing: BinaryPropertyListSharedObjects,
        limits: PropertyListLimits
    ) throws(PropertyListError) {
        // No container shared: every value is met through one reference, so
        // the references bound the count, and each reference adds at most the
        // largest shared string or data to the object area's bytes: nothing
        // needs walking (the common case: writers share strings, numbers and dates).
        let (sharedBytes, overflow) = sharing.referenceCount.multipliedReportingOverflow(by: sharing.largestSharedBytes)
        if !sharing.sharesAContainer, sharing.referenceCount <= limits.maximumObjectCount, !overflow,
            sharedBytes <= limits.maximumExpandedSize - min(scanner.objectsEnd, limits.maximumExpandedSize)
        {
            return
        }
        var expansion = BinaryPropertyListExpansion(
            scanner: scanner, sharing: sharing, limits: limits, counts: [Int](repeating: 0, count: sharing.count),
            sizes: [Int](repeating: 0, count: sharing.count))
        _ = try expansion.count(object, depth: depth)
    }

    private mutating func count(_ object: Int, depth: Int) throws(PropertyListError) -> (values: Int, bytes: Int) {
        let slot = sharing.slot(object)
        if let slot {
            let known = counts[slot]
            if known > 0 { return (known, sizes[slot]) }
            if known < 0 { return (1, 0) }  // A cycle, which the decoder reports where it meets it.
            counts[slot] = -1
        }
        var total = 1
        var bytes = 0
        if let offset = try? scanner.offset(ofObject: object) {
            bytes = scanner.storedBytes(ofObjectAt: offset)
            guard bytes <= limits.maximumExpandedSize else { throw expandedSizeError(at: offset) }
            if depth < limits.maximumDepth, let references = scanner.referencesIfContainer(at: offset) {
                var position = references.start
                for index in 0..<references.count {
                    let target = BinaryPropertyListScanner.readBigEndian(scanner.bytes, at: position, size: scanner.referenceSize)
                    position &+= scanner.referenceSize  // Safe: referencesIfContainer checked they all fit.
                    guard target < UInt64(scanner.objectCount) else { continue }
                    let part: (values: Int, bytes: Int)
                    do {
                        part = try count(Int(target), depth: depth + 1)
                    } catch {
                        // Without a step here, the path ends at this container.
                        guard let step = component(index, of: references.count, at: offset) else {
                            var located = error
                            located.keyPath = []
                            throw located
                        }
                        throw error.prefixed(by: step)
                    }
                    let (sum, overflow) = total.addingReportingOverflow(part.values)
                    guard !overflow, sum <= limits.maximumObjectCount else {
                        throw PropertyListError(
                            .limitExceeded(.objectCount), at: .byteOffset(offset),
                            "this value expands to more than \(limits.maximumObjectCount) values, each use of a shared object "
                                + "counted (the maximumObjectCount limit); nothing was decoded or written")
                    }
                    total = sum
                    // Each part is at most the limit, so the sum of two fits.
                    bytes &+= part.bytes
                    guard bytes <= limits.maximumExpandedSize else { throw expandedSizeError(at: offset) }
                }
            }
        }
        if let slot {
            counts[slot] = total
            sizes[slot] = bytes
        }
        return (total, bytes)
    }

    private func expandedSizeError(at offset: Int) -> PropertyListError {
        PropertyListError(
            .limitExceeded(.expandedSize), at: .byteOffset(offset),
            "this value expands to more than \(limits.maximumExpandedSize) bytes of strings and data, each use of a shared "
                + "object counted (the maximumExpandedSize limit); nothing was decoded or written")
    }

    /// The key path step to reference `index` of the `count` references of
    /// the container at `offset`: an index into an array, or the key of a
    /// dictionary's value (decoded here, only for an error's message; a key
    /// itself, or a key that is no string, gives none).
    private func component(_ index: Int, of count: Int, at offset: Int) -> PropertyListPathComponent? {
        guard scanner.bytes[offset] >> 4 == 0xD else { return .index(index) }
        let pairs = count / 2
        guard index >= pairs, let references = scanner.referencesIfContainer(at: offset),
            let keyObject = try? scanner.reference(at: references.start + (index - pairs) * scanner.referenceSize),
            let keyOffset = try? scanner.offset(ofObject: keyObject), [0x5, 0x6].contains(scanner.bytes[keyOffset] >> 4)
        else { return nil }
        var decoder = BinaryPropertyListDecoder(scanner: scanner, limits: limits, sharing: .none)
        guard case .string(let key)? = try? decoder.decode(keyObject, depth: 0) else { return nil }
        return .key(key)
    }
}
