import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension NIBArchiveFile {
    /// The file's lossless form as a property list, for JSON: every table
    /// entry as written, so that nothing of the file is lost but the
    /// encoding of its varints.
    ///
    /// ```
    /// {"format": "NIBArchive", "formatVersion": 1, "coderVersion": 9,
    ///  "objects": [{"class": 3, "className": "UIView", "firstValue": 0, "valueCount": 11}, …],
    ///  "keys": ["UIBounds", …],
    ///  "values": [{"key": 0, "keyName": "UIBounds", "type": "data", "value": {"$data": "…"}}, …],
    ///  "classNames": [{"name": "UIView", "extras": [8]}, …]}
    /// ```
    ///
    /// A value's `"value"` is an integer for the integer types and `object`
    /// (the object's index), a `$real32` for `float`, a real for `double`,
    /// `$data` for `data`, and absent for `true`, `false` and `nil`, whose
    /// type says all. `className` and `keyName` repeat what the indices name, for people.
    public var jsonForm: PropertyListValue {
        var form: OrderedDictionary<String, PropertyListValue> = [
            "format": .string("NIBArchive"),
            "formatVersion": .integer(PropertyListInteger(Int64(formatVersion))),
            "coderVersion": .integer(PropertyListInteger(Int64(coderVersion))),
        ]
        form["objects"] = .array(
            objects.map { object in
                .dictionary([
                    "class": .integer(PropertyListInteger(Int64(object.classNameIndex))),
                    "className": .string(classNames[object.classNameIndex].name),
                    "firstValue": .integer(PropertyListInteger(Int64(object.firstValueIndex))),
                    "valueCount": .integer(PropertyListInteger(Int64(object.valueCount))),
                ])
            })
        form["keys"] = .array(keys.map { .string($0) })
        form["values"] = .array(
            values.map { value in
                var entry: OrderedDictionary<String, PropertyListValue> = [
                    "key": .integer(PropertyListInteger(Int64(value.keyIndex))),
                    "keyName": .string(keys[value.keyIndex]),
                    "type": .string(value.value.typeName),
                ]
                if let scalar = Self.jsonScalar(value.value) { entry["value"] = scalar }
                return .dictionary(entry)
            })
        form["classNames"] = .array(
            classNames.map { className in
                .dictionary([
                    "name": .string(className.name),
                    "extras": .array(className.extras.map { .integer(PropertyListInteger(Int64($0))) }),
                ])
            })
        return .dictionary(form)
    }

    private static func jsonScalar(_ value: NIBArchiveValue) -> PropertyListValue? {
        switch value {
        case .int8, .int16, .int32, .int64: .integer(PropertyListInteger(value.integer ?? 0))
        case .float(let real): .real32(real)
        case .double(let real): .real(real)
        case .data(let bytes): .data(Data(bytes))
        case .object(let index): .integer(PropertyListInteger(Int64(index)))
        case .bool, .nil: nil
        }
    }
}
