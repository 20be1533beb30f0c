import DocumentFormats
import EmbeddedLayers
import Foundation
import KeyedArchive
import NIBArchive
import PropertyList
import TypedStream

let fuzzArchiveLimits = KeyedArchiveLimits(maximumDepth: 512, propertyList: fuzzLimits)

/// Keyed archive as a graph: what the reader reads, the writer writes and
/// the reader reads back equal; Foundation's classes decode by name (or
/// throw) and their readable text, as `ict inspect` shows it, is made without a trap.
func fuzzKeyedArchive(_ bytes: [UInt8]) {
    let reader = KeyedArchiveReader(limits: fuzzArchiveLimits)
    guard let archive = try? reader.read(bytes) else { return }
    let written: [UInt8]
    do { written = try KeyedArchiveWriter().encode(archive) } catch {
        require(false, "the archive writer refused what the reader read: \(error)")
        return
    }
    do {
        let again = try reader.read(written)
        require(
            again.top == archive.top && again.objects.count == archive.objects.count
                && zip(again.objects, archive.objects).allSatisfy { sameValue($0, $1) },
            "archive round trip changed the archive: \(brief(archive)) became \(brief(again))")
    } catch {
        require(false, "the archive reader refused what the writer wrote: \(error)")
    }
    for key in archive.top.keys.prefix(4) { _ = try? archive.decodeValue(forTopKey: key, limits: fuzzArchiveLimits).readableText }
    for index in 1..<max(1, min(archive.objects.count, 64)) { _ = archive.readableValue(ofObjectAt: index, limits: fuzzArchiveLimits)?.readableText }
}

/// Keyed archive into types: `CTData` and `CTMetadata` under `DATA` and
/// `root`, and Foundation's built-in classes; what decodes, archives and
/// decodes back equal.
func fuzzKeyedUnarchiver(_ bytes: [UInt8]) {
    guard let unarchiver = try? KeyedUnarchiver(bytes: bytes, limits: fuzzArchiveLimits) else { return }
    for key in [ICTDocumentFormat.topKey, "root"] {
        if let data = try? unarchiver.decodeTopLevelObject(of: CTData.self, forKey: key) {
            // The favourite number is written as a 32-bit real.
            var expected = data
            expected.favoriteNumber = data.favoriteNumber.map { Double(Float($0)) }
            requireArchiveRoundTrip(data, key: key, expected: expected, same: sameData)
        }
        if let metadata = try? unarchiver.decodeTopLevelObject(of: CTMetadata.self, forKey: key) {
            requireArchiveRoundTrip(metadata, key: key, expected: metadata) { $0 == $1 }
        }
    }
    if let archive = try? KeyedArchiveReader(limits: fuzzArchiveLimits).read(bytes) {
        for key in archive.top.keys.prefix(4) {
            _ = try? archive.decodeValue(forTopKey: key, allowedClassNames: ArchivedValue.builtInClassNames, limits: fuzzArchiveLimits)
        }
    }
}

/// Equal, with NaN favourite numbers equal.
func sameData(_ a: CTData, _ b: CTData) -> Bool {
    var x = a
    var y = b
    guard sameOptionalReal(x.favoriteNumber, y.favoriteNumber) else { return false }
    x.favoriteNumber = nil
    y.favoriteNumber = nil
    return x == y
}

private func sameOptionalReal(_ a: Double?, _ b: Double?) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case (let x?, let y?): sameReal(x, y)
    default: false
    }
}

private func requireArchiveRoundTrip<T: KeyedArchiveCodable>(_ object: T, key: String, expected: T, same: (T, T) -> Bool) {
    do {
        let bytes = try KeyedArchiver.archive(object, forKey: key)
        let again = try KeyedUnarchiver(bytes: bytes, limits: fuzzArchiveLimits).decodeTopLevelObject(of: T.self, forKey: key)
        require(again.map { same($0, expected) } ?? false, "\(T.self) archive round trip: \(brief(object)) became \(brief(again as Any))")
    } catch {
        require(false, "\(T.self) archive round trip failed: \(error) for \(brief(object))")
    }
}

/// Archive validator: stopping at the first problem finds the same first
/// problem as a full check, and a property list with no problem is one
/// `KeyedArchiveObjectGraph(propertyList:)` takes.
func fuzzArchiveValidator(_ bytes: [UInt8]) {
    guard let propertyList = try? PropertyListReader(limits: fuzzLimits).read(Data(bytes)).value else { return }
    var full = KeyedArchiveValidator()
    let archive = full.check(propertyList)
    var first = KeyedArchiveValidator(stopAtFirstProblem: true)
    _ = first.check(propertyList)
    require(
        first.problems.first == full.problems.first,
        "first problem differs: stopping gave \(brief(first.problems.first as Any)), full check \(brief(full.problems.first as Any))")
    if full.problems.isEmpty {
        require(archive != nil, "no problems found but no archive returned")
        do {
            _ = try KeyedArchiveObjectGraph(propertyList: propertyList)
        } catch {
            require(false, "the validator found no problem, KeyedArchiveObjectGraph(propertyList:) threw \(error)")
        }
    }
}

/// Archives inside archives (`EmbeddedArchives`): a property list in any
/// form whose data values may hold property lists, keyed archives, typed
/// streams or NIB archives. Every archive `find(in:)` reads, the `!` step reads equal; an
/// edit through the step writes data that reads back, in the same form,
/// as the edit left it; and the input read as a key path's text never crashes.
func fuzzEmbeddedArchives(_ bytes: [UInt8]) {
    _ = EmbeddedKeyPath(parsing: String(decoding: bytes.prefix(256), as: UTF8.self)).description
    let archives = EmbeddedArchives(
        limits: fuzzLimits, maximumNesting: 6, typedStreams: TypedStreamReader(limits: fuzzTypedStreamLimits),
        nibArchives: NIBArchiveReader(limits: fuzzNibLimits))
    guard let root = try? PropertyListReader(limits: fuzzLimits).read(Data(bytes)).value,
        let found = try? archives.find(in: root)
    else { return }
    var pending = found
    var checked = 0
    while let archive = pending.popLast(), checked < 20 {
        checked += 1
        pending += archive.nested
        guard let inner = archive.value else { continue }
        let step = archive.keyPath.appending(segment: PropertyListKeyPath())
        do {
            let stepped = try archives.value(in: root, at: step)
            require(sameValue(stepped, inner), "\(step) gave \(brief(stepped)), find(in:) read \(brief(inner))")
        } catch {
            require(false, "\(step) threw \(error) where find(in:) read \(brief(inner))")
        }
        let format: PropertyListFormat
        switch archive.form {
        case .propertyList(let form), .keyedArchive(let form): format = form
        case .typedStream, .nibArchive, .compressed, .protocolBuffer: continue
        }
        guard format != .openStep else { continue }
        var edited = root
        do {
            try archives.edit(&edited, at: step, followingLast: true) { value, path throws(PropertyListKeyPathError) in
                try value.setValue(.string("edited"), at: path, mode: .replace)
            }
        } catch {
            continue  // a value the form cannot hold (a UID in XML, say) is refused, not written
        }
        do {
            let again = try archives.value(in: edited, at: step)
            require(sameValue(again, .string("edited")), "\(step) after the edit gave \(brief(again))")
            guard case .data(let data)? = try? archives.value(in: edited, at: archive.keyPath) else {
                require(false, "\(archive.keyPath) is no longer data after an edit inside it")
                continue
            }
            let reread = try PropertyListReader(limits: fuzzLimits).read(data)
            require(reread.format == format, "the \(format) data at \(archive.keyPath) was written back as \(reread.format)")
        } catch {
            require(false, "an edit through \(step) wrote data that does not read back: \(error)")
        }
    }
}
