import ConflictVersions
import KeyedArchive
import OrderedCollections
import PackageFormat
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One problem a document has, with the entry and the key path inside it.
public struct DocumentFinding: Hashable, Sendable, CustomStringConvertible {
    /// How bad a finding is.
    public enum Severity: String, Hashable, Sendable {
        /// The document is certainly wrong: an entry missing or unreadable,
        /// a field of the wrong type, a PNG that does not decode.
        case error
        /// The document reads, but its entries disagree: a schema's
        /// consistency rule (names that differ, a thumbnail that is stale,
        /// made by another resizer, or rotated against its photo, as UIKit's
        /// EXIF-aware resizing leaves it) is not met.
        case warning
    }

    /// The entry (`ctdocument.data`), empty for the package itself.
    public var entry: String
    /// The key path inside the entry's archive (`DATA.PHOTO`), empty when none.
    public var keyPath: String
    /// A sentence for people.
    public var message: String
    /// How bad it is; consistency rules give warnings, everything else errors.
    public var severity: Severity = .error

    /// Makes a finding.
    public init(entry: String, keyPath: String, message: String, severity: Severity = .error) {
        self.entry = entry
        self.keyPath = keyPath
        self.message = message
        self.severity = severity
    }

    /// `entry: message (at key path)`.
    public var description: String {
        var text = entry.isEmpty ? message : "\(entry): \(message)"
        if !keyPath.isEmpty { text += " (at \(keyPath))" }
        return text
    }
}

/// Checks a data + metadata package against a `DocumentSchema`: required
/// entries, that each is a keyed archive whose root object has the class,
/// class chain, version, keys and value types the schema names, and the
/// schema's consistency rules (equal names, thumbnail matching the photo).
/// Reads every entry the schema names in full; never throws for a bad
/// document — every problem is a finding.
public struct DocumentValidator {
    /// The rules checked.
    public var schema: DocumentSchema
    /// The limits on the images decoded.
    public var imageLimits: ImageLimits

    /// Makes a validator; by default for `.ict` documents.
    public init(schema: DocumentSchema = .ictDocument, imageLimits: ImageLimits = .default) {
        self.schema = schema
        self.imageLimits = imageLimits
    }

    /// The problems of the package at `path`; empty when it is valid. A
    /// consistency rule not met gives a `.warning`, any other problem an
    /// `.error`. A package whose manifest says a sync engine left it mixed or
    /// partial (`PackageConsistency`, every file's digest read) gets an error
    /// per entry that is not the one saved, not listed, or missing; a
    /// conflict copy inside, a warning.
    package func validate(packageAt path: String) -> [DocumentFinding] {
        var findings = Self.consistencyFindings(path)
        let package: PackageWrapper
        do {
            package = try PackageWrapper(readingFrom: path, mode: .lazy)
        } catch {
            return findings + [DocumentFinding(entry: error.pathInPackage, keyPath: "", message: error.message)]
        }
        var fields: [String: OrderedDictionary<String, ArchivedValue>] = [:]
        for entry in schema.entries {
            if let root = check(entry, in: package, findings: &findings) { fields[entry.name] = root }
        }
        for rule in schema.rules {
            // A rule not met is a warning: the document still reads.
            findings += check(rule, fields: fields).map { finding in
                var warning = finding
                warning.severity = .warning
                return warning
            }
        }
        return findings
    }

    /// What the package's manifest says of it, a finding per entry; none
    /// for a package whole without conflict copies, without a manifest, or
    /// that cannot be listed (the package reader says why).
    static func consistencyFindings(_ path: String) -> [DocumentFinding] {
        guard let consistency = try? PackageConsistency(ofPackageAt: path, readingEveryFile: true), consistency.state != .unmanifested else {
            return []
        }
        var findings: [DocumentFinding] = []
        func add(_ entries: [String], _ message: String, _ severity: DocumentFinding.Severity = .error) {
            findings += entries.map { DocumentFinding(entry: $0, keyPath: "", message: message, severity: severity) }
        }
        if consistency.state == .manifestUnreadable {
            add([PackageManifest.fileName], "the package's manifest cannot be read: \(consistency.manifestError?.message ?? "")")
        }
        let mixed = "the package mixes entries of different saves, as a sync engine carried them file by file"
        add(consistency.differing, "not the entry the package's manifest lists: \(mixed)")
        add(consistency.unlisted, "not in the package's manifest: \(mixed)")
        add(
            consistency.missing,
            "missing: the package's manifest lists it (what is left of a package deleted on one device and edited on another, or one still arriving)")
        add(consistency.transfers, "a sync engine's transfer under way: the package is partial until it ends")
        add(consistency.conflictCopies, "a sync engine's conflict copy: the package is in conflict (ict versions, ict resolve)", .warning)
        return findings
    }

    /// Checks one entry; returns its root object's fields when it could be decoded.
    private func check(
        _ entry: DocumentSchema.Entry, in package: PackageWrapper,
        findings: inout [DocumentFinding]
    ) -> OrderedDictionary<String, ArchivedValue>? {
        func finding(_ keyPath: String, _ message: String) {
            findings.append(DocumentFinding(entry: entry.name, keyPath: keyPath, message: message))
        }
        let child = package.child(named: entry.name)
        if let problem = ICTDocumentFormat.entryProblem(child) {
            if child != nil {
                finding("", problem)
            } else if entry.isRequired {
                finding("", "required entry is missing")
            }
            return nil
        }
        guard let wrapper = child else { return nil }
        let root: ArchivedValue
        do {
            let archive = try KeyedArchiveReader().read([UInt8](try wrapper.contents()))
            root = try archive.decodeValue(forTopKey: entry.rootKey)
        } catch let error as KeyedArchiveError {
            finding(error.keyPath.description, "not a readable keyed archive: \(error.message)")
            return nil
        } catch {
            finding("", "cannot be read: \(error)")
            return nil
        }
        guard case .object(let object) = root else {
            finding(entry.rootKey, "the root object is \(Self.describe(root)), expected class \(entry.className)")
            return nil
        }
        guard object.classDescription.name == entry.className else {
            finding(entry.rootKey, "the root object is of class \(object.classDescription.name), expected \(entry.className)")
            return nil
        }
        if !entry.classChain.isEmpty, object.classDescription.chain != entry.classChain {
            finding(
                entry.rootKey + ".$class",
                "class chain \(object.classDescription.chain.joined(separator: " → ")), expected \(entry.classChain.joined(separator: " → "))")
        }
        if let versionKey = entry.versionKey {
            if case .integer(let version)? = object.fields[versionKey], let value = version.int64Value {
                if !entry.versions.contains(value) {
                    finding(
                        "\(entry.rootKey).\(versionKey)",
                        "unsupported \(versionKey) \(value) (supported: \(entry.versions.map(String.init).joined(separator: ", ")))")
                    return nil
                }
            }
        }
        for key in entry.keys {
            if let message = check(object.fields[key.key], as: key) { finding("\(entry.rootKey).\(key.key)", message) }
        }
        return object.fields
    }

    /// A message when `value` is not what `key` needs, else nil.
    private func check(_ value: ArchivedValue?, as key: DocumentSchema.Key) -> String? {
        switch (value, key.type) {
        case (nil, _), (.null?, _):
            return key.isRequired ? "required key \(key.key) is missing" : nil
        case (.integer?, .integer), (.integer?, .number), (.real?, .number), (.real32?, .number),
            (.string?, .string), (.data?, .data):
            return nil
        case (.data(let bytes)?, .png):
            do {
                _ = try PNGImage(pngBytes: [UInt8](bytes), limits: imageLimits)
                return nil
            } catch {
                return "\(key.key): \(error.message)"
            }
        case (let other?, _):
            return "\(key.key) is \(Self.describe(other)), expected \(key.type.rawValue)"
        }
    }

    private func check(_ rule: DocumentSchema.Rule, fields: [String: OrderedDictionary<String, ArchivedValue>]) -> [DocumentFinding] {
        func value(_ field: DocumentSchema.FieldReference) -> ArchivedValue? {
            guard let value = fields[field.entry]?[field.key], value != .null else { return nil }
            return value
        }
        func keyPath(_ field: DocumentSchema.FieldReference) -> String {
            "\(schema.entry(named: field.entry)?.rootKey ?? "DATA").\(field.key)"
        }
        switch rule {
        case .equal(let a, let b):
            guard let first = value(a), let second = value(b), first != second else { return [] }
            return [
                DocumentFinding(
                    entry: a.entry, keyPath: keyPath(a),
                    message: "\(a.key) \(Self.describe(first)) differs from \(b.entry) \(b.key) \(Self.describe(second))")
            ]
        case .thumbnail(let thumbnailField, let imageField, let width, let height, let minimumPSNR):
            guard case .data(let thumbnailBytes)? = value(thumbnailField), case .data(let imageBytes)? = value(imageField),
                let thumbnail = try? PNGImage(pngBytes: [UInt8](thumbnailBytes), limits: imageLimits),
                let image = try? PNGImage(pngBytes: [UInt8](imageBytes), limits: imageLimits)
            else { return [] }
            let place = (entry: thumbnailField.entry, keyPath: keyPath(thumbnailField))
            guard thumbnail.width == width, thumbnail.height == height else {
                return [
                    DocumentFinding(
                        entry: place.entry, keyPath: place.keyPath,
                        message: "\(thumbnailField.key) is \(thumbnail.width)×\(thumbnail.height), expected \(width)×\(height)")
                ]
            }
            let psnr = thumbnail.peakSignalToNoiseRatio(comparedWith: image.resized(width: width, height: height))
            guard psnr < minimumPSNR else { return [] }
            return [
                DocumentFinding(
                    entry: place.entry, keyPath: place.keyPath,
                    message:
                        "\(thumbnailField.key) does not show \(imageField.entry) \(imageField.key) (PSNR \(Int(psnr)) dB, at least \(Int(minimumPSNR)) dB expected)"
                )
            ]
        }
    }

    /// A value's kind and, for short values, the value, for messages.
    static func describe(_ value: ArchivedValue) -> String {
        switch value {
        case .string(let string): "\"\(string)\""
        case .integer(let integer): "the integer \(integer)"
        case .real(let real): "the real \(real)"
        case .real32(let real): "the real \(real)"
        case .data(let data): "\(data.count) bytes of data"
        case .null: "$null"
        case .object(let object): "an object of class \(object.classDescription.name)"
        default: "a value of another kind"
        }
    }
}

extension PNGImage {
    /// The peak signal-to-noise ratio between two images of the same size,
    /// over the RGB channels composited on black, in decibels (infinity when equal).
    public func peakSignalToNoiseRatio(comparedWith other: PNGImage) -> Double {
        precondition(width == other.width && height == other.height, "PSNR of images of different sizes")
        var squaredError = 0.0
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            for channel in 0..<3 {
                let a = Double(pixels[offset + channel]) * Double(pixels[offset + 3]) / 255
                let b = Double(other.pixels[offset + channel]) * Double(other.pixels[offset + 3]) / 255
                squaredError += (a - b) * (a - b)
            }
        }
        let meanSquaredError = squaredError / Double(width * height * 3)
        return meanSquaredError == 0 ? .infinity : 10 * CMath.log10(255 * 255 / meanSquaredError)
    }
}
