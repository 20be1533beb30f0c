import PropertyList
import TypedStream

let fuzzTypedStreamLimits = TypedStreamLimits(maximumDepth: 512, maximumValueCount: 200_000)

/// Typed stream: what the reader reads refers only to classes and objects
/// it holds, writes as JSON, and decodes (or is refused) without crashing;
/// every attributed string's runs lie inside its text.
func fuzzTypedStream(_ bytes: [UInt8]) {
    guard let document = try? TypedStreamReader(limits: fuzzTypedStreamLimits).read(bytes) else { return }
    func check(_ value: TypedStreamValue) {
        switch value {
        case .object(let index?): require(document.objects.indices.contains(index), "object reference \(index) of \(document.objects.count)")
        case .class(let index?): require(document.classes.indices.contains(index), "class reference \(index) of \(document.classes.count)")
        case .array(let elements): elements.forEach(check)
        case .structure(_, let fields): fields.forEach(check)
        default: break
        }
    }
    for item in document.classes {
        if let superclass = item.superclass { require(document.classes.indices.contains(superclass), "superclass \(superclass)") }
    }
    for object in document.objects {
        require(document.classes.indices.contains(object.classIndex), "object class \(object.classIndex)")
        document.fields(of: object).forEach { check($0.value) }
        _ = document.classChain(of: object)
    }
    document.root.forEach { $0.values.forEach { check($0.value) } }
    do { _ = try JSONPropertyListWriter().encode(document.jsonForm) } catch {
        require(false, "the JSON writer refused the typed stream's JSON form: \(error)")
    }
    var decoder = TypedStreamFoundationDecoder(document: document)
    for index in document.objects.indices.prefix(64) {
        guard let decoded = try? decoder.decodeObject(at: index) else { continue }
        if case .attributedString(let text) = decoded {
            let count = text.string.utf16.count
            require(
                text.runs.allSatisfy { $0.range.location >= 0 && $0.range.length >= 0 && $0.range.location + $0.range.length <= count },
                "a run outside its text of \(count) UTF-16 units")
        }
        do { _ = try JSONPropertyListWriter().encode(decoded.jsonForm) } catch {
            require(false, "the JSON writer refused a decoded object's JSON form: \(error)")
        }
    }
    for keyPath in ["", "0", "0.0", "1.2", "2"] { _ = try? document.value(atKeyPath: keyPath) }
}
