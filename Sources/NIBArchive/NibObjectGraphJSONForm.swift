import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension NibObjectGraph {
    /// The graph as a property list, for JSON:
    ///
    /// ```
    /// {"root": 0, "topLevelObjects": [85, …],
    ///  "connections": [{"kind": "outlet", "object": 7, "source": 42, "destination": 33, "label": "_teleprompterView"}, …],
    ///  "objects": [{"index": 0, "className": "NSObject", "fields": [{"key": "UINibTopLevelObjectsKey", "value": {"$uid": 85}}, …]}, …]}
    /// ```
    ///
    /// A reference is a `$uid` holding the object's index; strings, numbers,
    /// booleans and data are themselves, `nil` is `{"nil": true}`, a list an
    /// array; a string object also has `"string"`. A `UIColor` or `UIFont`
    /// that decodes (`readableValue(ofObjectAt:limits:)`) also has
    /// `"readable"`, its `readableText`, after its fields, which stay as
    /// they are (as `ict inspect --json` shows a keyed archive's colour or font).
    ///
    /// Cost: decodes each `UIColor` and `UIFont` object.
    public var jsonForm: PropertyListValue {
        var form: OrderedDictionary<String, PropertyListValue> = ["root": .integer(PropertyListInteger(rootIndex))]
        form["topLevelObjects"] = .array(topLevelObjects.map { .integer(PropertyListInteger($0)) })
        form["connections"] = .array(
            connections.map { connection in
                var entry: OrderedDictionary<String, PropertyListValue> = [
                    "kind": .string(connection.kind.rawValue), "object": .integer(PropertyListInteger(connection.objectIndex)),
                ]
                if let source = connection.source { entry["source"] = .integer(PropertyListInteger(source)) }
                if let destination = connection.destination { entry["destination"] = .integer(PropertyListInteger(destination)) }
                if let label = connection.label { entry["label"] = .string(label) }
                return .dictionary(entry)
            })
        form["objects"] = .array(
            objects.compactMap { object in
                guard let object else { return nil }
                var entry: OrderedDictionary<String, PropertyListValue> = [
                    "index": .integer(PropertyListInteger(object.index)), "className": .string(object.className),
                ]
                if let string = object.string { entry["string"] = .string(string) }
                entry["fields"] = .array(
                    object.fields.map { .dictionary(["key": .string($0.key), "value": Self.jsonValue($0.value)]) })
                if let value = readableValue(ofObjectAt: object.index) { entry["readable"] = .string(value.readableText) }
                return .dictionary(entry)
            })
        return .dictionary(form)
    }

    /// A value as a property list: a reference as a UID, `nil` as `{"nil": true}`.
    public static func jsonValue(_ value: Value) -> PropertyListValue {
        switch value {
        case .object(let index): .uid(UInt64(index))
        case .integer(let integer): .integer(PropertyListInteger(integer))
        case .real(let real): .real(real)
        case .bool(let flag): .bool(flag)
        case .data(let bytes): .data(Data(bytes))
        case .string(let text): .string(text)
        case .nil: .dictionary(["nil": .bool(true)])
        case .list(let list): .array(list.map(jsonValue))
        }
    }
}

extension NibObjectGraph {
    /// The value a key path names, for `ict get`:
    ///
    /// - `objects.N`: object N (a reference to it);
    /// - `objects.N.KEY`: object N's first field named KEY (a key may hold dots, `NS.bytes`);
    /// - `objects.N.KEY.M`: its field number M (from 0) among those named KEY, as for the
    ///   elements of an array, all named `UINibEncoderEmptyKey`;
    /// - `root`: the root object; `topLevelObjects`: the list of top-level objects;
    ///   `topLevelObjects.M`: the M-th of them.
    ///
    /// - Throws: `NIBArchiveError` `.keyPathNotFound` naming the part that does not resolve.
    public func value(atKeyPath keyPath: String) throws(NIBArchiveError) -> Value {
        let parts = keyPath.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        func notFound(_ why: String) -> NIBArchiveError {
            NIBArchiveError(.keyPathNotFound, at: nil, "key path \(keyPath): \(why)")
        }
        switch parts.first {
        case "root" where parts.count == 1: return .object(rootIndex)
        case "topLevelObjects":
            if parts.count == 1 { return .list(topLevelObjects.map(Value.object)) }
            guard parts.count == 2, let position = Int(parts[1]), topLevelObjects.indices.contains(position) else {
                throw notFound("there are \(topLevelObjects.count) top-level objects")
            }
            return .object(topLevelObjects[position])
        case "objects":
            guard parts.count >= 2, let index = Int(parts[1]), let object = object(index) else {
                throw notFound("expected objects.N with N the index of an object")
            }
            guard parts.count == 3 else { return .object(index) }
            guard let value = field(parts[2], of: object) else { throw notFound("object \(index) has no field \(parts[2])") }
            return value
        default:
            throw notFound("expected root, topLevelObjects[.M] or objects.N[.KEY[.M]]")
        }
    }

    /// The field `path` names in `object`: a key, or a key and an occurrence number.
    private func field(_ path: String, of object: Object) -> Value? {
        if let field = object.fields.first(where: { $0.key == path }) { return field.value }
        guard let dot = path.lastIndex(of: "."), let occurrence = Int(path[path.index(after: dot)...]) else { return nil }
        let key = String(path[..<dot])
        let matching = object.fields.filter { $0.key == key }
        return matching.indices.contains(occurrence) ? matching[occurrence].value : nil
    }
}
