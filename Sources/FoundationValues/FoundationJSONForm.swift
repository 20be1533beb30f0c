import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The JSON-ready forms of the shared values, written once for both readers:
// `{"class": "NSColor", "space": "calibratedRGB", "components": [...]}` and so on.

/// Helpers for the JSON forms.
public enum FoundationJSON {
    /// A real as a JSON-ready value: `"nan"`, `"inf"`, `"-inf"` for what JSON cannot hold.
    public static func real(_ value: Double) -> PropertyListValue {
        if value.isNaN { return .string("nan") }
        if value.isInfinite { return .string(value < 0 ? "-inf" : "inf") }
        return .real(value)
    }

    /// An integer as a JSON-ready value.
    public static func integer(_ value: Int) -> PropertyListValue { .integer(PropertyListInteger(Int64(value))) }
}

extension FoundationColor {
    /// `{"class": "NSColor", "space", "components", "catalog"?, "name"?, "iccProfile"?}`.
    public var jsonForm: PropertyListValue {
        var entry: OrderedDictionary<String, PropertyListValue> = [
            "class": .string("NSColor"), "space": .string(space.rawValue), "components": .array(components.map(FoundationJSON.real)),
        ]
        if let catalog { entry["catalog"] = .string(catalog) }
        if let name { entry["name"] = .string(name) }
        if let iccProfile { entry["iccProfile"] = .data(Data(iccProfile)) }
        return .dictionary(entry)
    }
}

extension FoundationFont {
    /// `{"class": "NSFont", "size", "name"?, "flags"?, "descriptor"?}`.
    public var jsonForm: PropertyListValue {
        var entry: OrderedDictionary<String, PropertyListValue> = ["class": .string("NSFont"), "size": FoundationJSON.real(size)]
        if let name { entry["name"] = .string(name) }
        if let flags { entry["flags"] = .integer(PropertyListInteger(flags)) }
        if let descriptor { entry["descriptor"] = descriptor.jsonForm }
        return .dictionary(entry)
    }
}

extension FoundationFontDescriptor {
    /// `{"name"?, "family"?, "face"?, "size"?, "usage"?, "features"?: [{"type", "selector"} or {"tag", "value"}], "otherAttributes"?}`.
    public var jsonForm: PropertyListValue {
        var entry: OrderedDictionary<String, PropertyListValue> = [:]
        if let name { entry["name"] = .string(name) }
        if let family { entry["family"] = .string(family) }
        if let face { entry["face"] = .string(face) }
        if let size { entry["size"] = FoundationJSON.real(size) }
        if let usage { entry["usage"] = .string(usage) }
        if !features.isEmpty {
            entry["features"] = .array(
                features.map { feature in
                    switch feature {
                    case .aat(let type, let selector):
                        .dictionary(["type": .integer(PropertyListInteger(type)), "selector": .integer(PropertyListInteger(selector))])
                    case .openType(let tag, let value): .dictionary(["tag": .string(tag), "value": .integer(PropertyListInteger(value))])
                    }
                })
        }
        if !otherAttributeNames.isEmpty { entry["otherAttributes"] = .array(otherAttributeNames.map(PropertyListValue.string)) }
        return .dictionary(entry)
    }
}

extension FoundationURL {
    /// `{"class": "NSURL", "string", "base"?, "absoluteString"}`.
    public var jsonForm: PropertyListValue {
        var entry: OrderedDictionary<String, PropertyListValue> = ["class": .string("NSURL"), "string": .string(string)]
        if let base { entry["base"] = .string(base) }
        entry["absoluteString"] = .string(absoluteString)
        return .dictionary(entry)
    }
}

extension FoundationGeometry {
    /// `{"class": "NSValue", "value": "{{0, 0}, {10, 10}}"}`.
    public var jsonForm: PropertyListValue { .dictionary(["class": .string("NSValue"), "value": .string(description)]) }
}

extension FoundationIndexSet {
    /// `{"class": "NSIndexSet", "ranges": [{"location", "length"}]}`.
    public var jsonForm: PropertyListValue {
        .dictionary([
            "class": .string("NSIndexSet"),
            "ranges": .array(
                ranges.map { .dictionary(["location": FoundationJSON.integer($0.location), "length": FoundationJSON.integer($0.length)]) }),
        ])
    }
}

extension FoundationDateComponents {
    /// `{"class": "NSDateComponents", "year": 2024, …, "calendar"?, "timeZone"?}`.
    public var jsonForm: PropertyListValue {
        var entry: OrderedDictionary<String, PropertyListValue> = ["class": .string("NSDateComponents")]
        for unit in Unit.allCases { if let value = values[unit] { entry[unit.rawValue] = .integer(PropertyListInteger(value)) } }
        if let isLeapMonth { entry["isLeapMonth"] = .bool(isLeapMonth) }
        if let calendarIdentifier { entry["calendar"] = .string(calendarIdentifier) }
        if let timeZone { entry["timeZone"] = .string(timeZone.name) }
        return .dictionary(entry)
    }
}

extension FoundationTimeZone {
    /// `{"class": "NSTimeZone", "name"}` (the TZif data stays in the lossless form).
    public var jsonForm: PropertyListValue { .dictionary(["class": .string("NSTimeZone"), "name": .string(name)]) }
}

extension FoundationLocale {
    /// `{"class": "NSLocale", "identifier"}`.
    public var jsonForm: PropertyListValue { .dictionary(["class": .string("NSLocale"), "identifier": .string(identifier)]) }
}
