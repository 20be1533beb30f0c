import Foundation
import OrderedCollections
@_spi(Fuzzing) import PropertyList

/// Binary reader: what the quick read returns, the careful decoder returns
/// too (where the careful decoder refuses a file, the quick read gives up);
/// the quick read in parts on three threads returns what the quick read
/// returns, and gives up where it does; what it reads, the binary writer
/// writes and it reads back equal; the streaming conversion to XML writes
/// what the XML writer writes of it.
func fuzzBinaryPropertyList(_ bytes: [UInt8]) {
    requireConversionAgreement(bytes)
    let readings = bytes.withUnsafeBytes { BinaryPropertyListReader(limits: fuzzLimits).readAllWays($0) }
    if let readings {
        switch (readings.quick, readings.inParts) {
        case (nil, nil): break
        case (let quick?, let inParts?):
            require(sameValue(quick, inParts), "the quick read gave \(brief(quick)), the read in parts \(brief(inParts))")
        case (let quick, let inParts):
            require(false, "the quick read gave \(quick.map(brief) ?? "nil"), the read in parts \(inParts.map(brief) ?? "nil")")
        }
    }
    if let readings, let quick = readings.quick {
        switch readings.careful {
        case .success(let careful):
            require(sameValue(quick, careful), "the quick read gave \(brief(quick)), the careful decoder \(brief(careful))")
        case .failure(let error):
            require(false, "the quick read gave \(brief(quick)) where the careful decoder refuses the file: \(error)")
        }
    }
    guard let value = try? BinaryPropertyListReader(limits: fuzzLimits).read(Data(bytes)) else { return }
    requireRoundTrip(value, through: "binary") { v throws(PropertyListError) in
        try BinaryPropertyListWriter().encode(v)
    } read: { b throws(PropertyListError) in
        try BinaryPropertyListReader(limits: fuzzLimits).read(Data(b))
    }
}

/// XML reader: what its first tries (the quick read of the common
/// document, libxml2 reading the document whole) read, the parse in pieces
/// it falls back to reads the same; what it reads, the XML writer writes
/// and it reads back equal.
func fuzzXMLPropertyList(_ bytes: [UInt8]) {
    let readings = bytes.withUnsafeBytes { XMLPropertyListReader(limits: fuzzLimits).readAllWays($0) }
    if let readings, let quick = readings.quick {
        switch readings.inPieces {
        case .success(let inPieces):
            require(sameValue(quick, inPieces), "the quick read gave \(brief(quick)), the parse in pieces \(brief(inPieces))")
        case .failure(let error):
            require(false, "the quick read gave \(brief(quick)) where the parse in pieces refuses the document: \(error)")
        }
    }
    if let readings, case .success(let firstTry) = readings.firstTry {
        switch readings.inPieces {
        case .success(let inPieces):
            require(sameValue(firstTry, inPieces), "the first try gave \(brief(firstTry)), the parse in pieces \(brief(inPieces))")
        case .failure(let error):
            require(false, "the first try gave \(brief(firstTry)) where the parse in pieces refuses the document: \(error)")
        }
    }
    guard let value = try? XMLPropertyListReader(limits: fuzzLimits).read(Data(bytes)) else { return }
    requireRoundTrip(value, through: "XML") { v throws(PropertyListError) in
        try XMLPropertyListWriter().encode(v)
    } read: { b throws(PropertyListError) in
        try XMLPropertyListReader(limits: fuzzLimits).read(Data(b))
    }
}

/// OpenStep reader (no OpenStep writer): what it reads, the binary writer
/// writes and the binary reader reads back equal.
func fuzzOpenStepPropertyList(_ bytes: [UInt8]) {
    guard let value = try? OpenStepPropertyListReader(limits: fuzzLimits).read(Data(bytes)) else { return }
    requireRoundTrip(value, through: "binary") { v throws(PropertyListError) in
        try BinaryPropertyListWriter().encode(v)
    } read: { b throws(PropertyListError) in
        try BinaryPropertyListReader(limits: fuzzLimits).read(Data(b))
    }
}

/// JSON form reader: what it reads, the JSON writer writes and it reads back equal.
func fuzzJSONPropertyList(_ bytes: [UInt8]) {
    guard let value = try? JSONPropertyListReader(limits: fuzzLimits).read(Data(bytes)) else { return }
    requireRoundTrip(value, through: "JSON") { v throws(PropertyListError) in
        try JSONPropertyListWriter().encode(v)
    } read: { b throws(PropertyListError) in
        try JSONPropertyListReader(limits: fuzzLimits).read(Data(b))
    }
}

/// The streaming binary → XML conversion (in small pieces) writes exactly
/// what reading the file and writing its value as XML writes, and refuses
/// whatever one of those two refuses.
private func requireConversionAgreement(_ bytes: [UInt8]) {
    let expected: Result<[UInt8], PropertyListError> = Result { () throws(PropertyListError) in
        try XMLPropertyListWriter().encode(try BinaryPropertyListReader(limits: fuzzLimits).read(Data(bytes)))
    }
    let path = "\(scratchFolder)/convert.plist"
    writeFile(path, bytes)
    guard let file = try? MappedFile(url: URL(filePath: path)) else { return }  // Refused before any conversion: too short, say.
    var output: [UInt8] = []
    let converted: Result<[UInt8], PropertyListError> = Result { () throws(PropertyListError) in
        try XMLPropertyListWriter().encode(binaryPropertyList: file, limits: fuzzLimits, chunkSize: 64) {
            (piece) throws(PropertyListError) in output.append(contentsOf: piece)
        }
        return output
    }
    switch (expected, converted) {
    case (.success(let whole), .success(let streamed)):
        require(whole == streamed, "the conversion wrote \(streamed.count) bytes unlike the \(whole.count) the XML writer wrote")
    case (.failure, .failure): break
    case (.success, .failure(let error)): require(false, "the conversion refused what the reader and writer take: \(error)")
    case (.failure(let error), .success): require(false, "the conversion took what the reader or writer refuses: \(error)")
    }
}

/// Writes `value`, reads it back, and crashes unless the two are equal.
func requireRoundTrip(
    _ value: PropertyListValue, through format: String,
    write: (PropertyListValue) throws(PropertyListError) -> [UInt8],
    read: ([UInt8]) throws(PropertyListError) -> PropertyListValue
) {
    let written: [UInt8]
    do { written = try write(value) } catch {
        require(false, "the \(format) writer refused what the reader read: \(error); value \(brief(value))")
        return
    }
    do {
        let again = try read(written)
        require(sameValue(value, again), "\(format) round trip changed the value: \(brief(value)) became \(brief(again))")
    } catch {
        require(false, "the \(format) reader refused what the writer wrote: \(error); value \(brief(value))")
    }
}

/// Partial binary reader: on a file the full reader reads, the objects it
/// gives, followed from the top, make the same value.
func fuzzPartialBinaryPropertyList(_ bytes: [UInt8]) {
    let path = "\(scratchFolder)/partial.plist"
    writeFile(path, bytes)
    guard let partial = try? PartialBinaryPropertyList(url: URL(filePath: path), limits: fuzzLimits) else { return }
    var budget = 20_000
    let rebuilt = try? rebuild(partial, partial.topObject, depth: 0, budget: &budget)
    // Touch every object too: none may crash, whatever the full reader says.
    for index in 0..<min(partial.objectCount, 2_000) { _ = try? partial.object(index) }
    guard let full = try? BinaryPropertyListReader(limits: fuzzLimits).read(Data(bytes)), budget > 0 else { return }
    guard let rebuilt else {
        require(false, "the partial reader refused objects of a file the full reader reads as \(brief(full))")
        return
    }
    require(sameValue(widened(full), rebuilt), "partial reader gave \(brief(rebuilt)), full reader \(brief(full))")
}

private struct BudgetExhausted: Error {}

/// The value of object `index` and those it refers to, from the partial reader.
private func rebuild(_ partial: PartialBinaryPropertyList, _ index: Int, depth: Int, budget: inout Int) throws -> PropertyListValue {
    budget -= 1
    guard budget > 0, depth < 512 else { throw BudgetExhausted() }
    switch try partial.object(index) {
    case .bool(let b): return .bool(b)
    case .integer(let i): return .integer(i)
    case .real(let r): return .real(r)
    case .date(let d): return .date(Date(timeIntervalSinceReferenceDate: d))
    case .data(let offset, let count): return .data(Data(try partial.bytes(at: offset, count: count)))
    case .string(let s): return .string(s)
    case .uid(let u): return .uid(u)
    case .array(let members):
        return .array(try members.map { try rebuild(partial, $0, depth: depth + 1, budget: &budget) })
    case .dictionary(let keys, let values):
        var dictionary = OrderedDictionary<String, PropertyListValue>()
        for (key, value) in zip(keys, values) {
            guard case .string(let name) = try rebuild(partial, key, depth: depth + 1, budget: &budget) else {
                throw PropertyListError(.invalidObject, at: .none, "non-string key")
            }
            dictionary[name] = try rebuild(partial, value, depth: depth + 1, budget: &budget)
        }
        return .dictionary(dictionary)
    }
}

/// `value` with 32-bit reals widened, as the partial reader gives them.
private func widened(_ value: PropertyListValue) -> PropertyListValue {
    switch value {
    case .real32(let f): .real(Double(f))
    case .array(let members): .array(members.map(widened))
    case .dictionary(let d): .dictionary(d.mapValues(widened))
    default: value
    }
}

/// Key-path lookup in a binary document: for every key path of the decoded
/// value (the first few hundred), `value(at:)` gives the value found there.
func fuzzKeyPathLookup(_ bytes: [UInt8]) {
    guard let document = try? BinaryPropertyListDocument(data: Data(bytes), limits: fuzzLimits) else { return }
    guard let value = try? document.decode() else {
        // The lookup alone must still not crash.
        _ = try? document.value(at: PropertyListKeyPath(parsing: "a.0.b"))
        return
    }
    var paths: [(PropertyListKeyPath, PropertyListValue)] = []
    collectKeyPaths(value, [], into: &paths)
    for (path, expected) in paths {
        do {
            let found = try document.value(at: path)
            require(
                found.map { sameValue($0, expected) } ?? false,
                "value(at: \(path)) gave \(brief(found as Any)), the decoded value has \(brief(expected))")
            _ = try document.offset(of: path)
        } catch {
            require(false, "value(at: \(path)) threw \(error) on a document decode() reads")
        }
    }
}

private func collectKeyPaths(
    _ value: PropertyListValue, _ path: PropertyListKeyPath,
    into paths: inout [(PropertyListKeyPath, PropertyListValue)]
) {
    guard paths.count < 300 else { return }
    paths.append((path, value))
    switch value {
    case .array(let members):
        for (i, member) in members.enumerated() { collectKeyPaths(member, path.appending(.index(i)), into: &paths) }
    case .dictionary(let d):
        for (key, member) in d { collectKeyPaths(member, path.appending(.key(key)), into: &paths) }
    default: break
    }
}
