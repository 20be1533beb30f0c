import FileCoordination
import PropertyList
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and writing files as `plutil` does.
extension Plutil {
    /// What `plutil` says of zero bytes of input.
    package static let emptyPropertyList = "Cannot parse a NULL or zero-length data"

    /// The bytes of `path` (`-` standard input), with `plutil`'s words when
    /// they cannot be read; to edit in place, only a regular file is read.
    package static func readBytes(_ path: String, for purpose: InputFile.Purpose = .reading) throws(CommandFailure) -> [UInt8] {
        guard !path.isEmpty else { throw CommandFailure("Empty path specified") }
        if path != "-" {
            let info: FileInfo
            do throws(SystemCallError) {
                info = try FileInfo.of(path: path)
            } catch {
                throw CommandFailure(systemMessage(error))
            }
            if info.kind == .directory {
                throw CommandFailure("(The operation could not be completed. (NSCocoaErrorDomain error 256.))")
            }
        }
        let bytes: [UInt8]
        do throws(PropertyListError) {
            bytes = try InputFile(path: path, for: purpose).withBytes { [UInt8]($0) }
        } catch {
            // plutil has no --max-input-size: say what the limit is, not how ict sets it.
            if error.code == .limitExceeded(.inputSize) {
                let limit = PropertyListLimits.default.maximumInputSize
                throw CommandFailure("(The operation could not be completed. The file is larger than \(limit) bytes, the most plutil reads.)")
            }
            // With the byte, if any; a description that starts with its verb ("is a FIFO …") names the file.
            let description = error.description.hasPrefix("is ") ? "The file " + error.description : error.description
            throw CommandFailure("(The operation could not be completed. \(description))")
        }
        // Foundation reads an empty standard input as no data at all.
        if path == "-", bytes.isEmpty { throw CommandFailure("(Unable to read file from standard input)") }
        return bytes
    }

    /// Foundation's words for a failed file operation.
    package static func systemMessage(_ error: SystemCallError) -> String {
        if error.isMissing { return "(The operation could not be completed. The file doesn’t exist.)" }
        if error.isPermissionDenied { return "(The operation could not be completed. Permission denied)" }
        return "(The operation could not be completed. \(error.reason))"
    }

    /// Reads a binary, XML or OpenStep property list, as `-lint` checks them (JSON is not a property list to it).
    package static func readPropertyListOnly(_ bytes: [UInt8]) throws(PropertyListError) -> (PropertyListValue, Format) {
        let result: Result<(PropertyListValue, Format), PropertyListError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in
                switch PropertyListFormat.detect(buffer) {
                case .binary: (try BinaryPropertyListReader().read(buffer), .binary)
                case .xml: (try XMLPropertyListReader().read(buffer), .xml)
                case .openStep, .json: (try OpenStepPropertyListReader().read(buffer), .openStep)
                }
            }
        }
        return try result.get()
    }

    /// Reads `path` as `plutil` does: a property list in any form, else
    /// plain JSON (no `$data` tags), saying both readers' complaints when neither can.
    package static func readPropertyList(_ path: String, for purpose: InputFile.Purpose = .reading) throws(CommandFailure) -> (PropertyListValue, Format) {
        let bytes = try readBytes(path, for: purpose)
        let propertyListError: PropertyListError
        do throws(PropertyListError) {
            return try readPropertyListOnly(bytes)
        } catch {
            propertyListError = error
        }
        do throws(PropertyListError) {
            let value = try JSONPropertyListReader(interpretsTags: false).read(Data(bytes))
            switch value {
            case .array, .dictionary: return (value, .json)
            default: throw PropertyListError(.invalidValue, at: .none, "JSON text did not start with array or object")
            }
        } catch {
            if error.message == "null has no property-list equivalent" {
                throw CommandFailure("Dictionaries are required to have string keys in property lists")
            }
            if bytes.isEmpty {
                throw CommandFailure("Property List error: \(emptyPropertyList) / JSON error: Unexpected end of file during JSON parse.")
            }
            throw CommandFailure("Property List error: \(propertyListError.description) / JSON error: \(error.description)")
        }
    }

    /// Writes `value`, read from `path`, in `format`: to standard output for
    /// `-o -` (and for raw and type output without `-o`), else to the file
    /// `-o` names or to `path` itself (its extension changed by `-e`, and
    /// to `.swift` or `.m` for those formats).
    ///
    /// With `expected` (the stamp of `path` before it was read), a file
    /// written over `path` itself replaces only that file.
    package static func write(
        _ value: PropertyListValue, from path: String, format: Format, options: Options,
        keyPath: String?, header: Bool, expecting expected: FileStamp? = nil
    ) throws(CommandFailure) {
        let target = outputPath(for: path, format: format, options: options)
        let bytes: [UInt8]
        switch format {
        case .xml: bytes = try encode(value, .xml)
        case .binary: bytes = try encode(value, .binary)
        case .json:
            guard PlutilTextForm.isValidJSON(value) else { throw CommandFailure("Invalid object in plist for JSON format") }
            bytes = Array(PlutilTextForm.json(value, readable: options.readable).utf8)
        case .swift: bytes = Array(PlutilTextForm.swiftLiteral(value, sourcePath: path).utf8)
        case .objc:
            guard PlutilTextForm.isValidObjC(value) else {
                throw CommandFailure("Input contains an object that cannot be represented in Obj-C literal syntax")
            }
            bytes = Array(PlutilTextForm.objcLiteral(value, sourcePath: path, outputPath: target).utf8)
        case .raw: bytes = Array(PlutilTextForm.raw(value).utf8)
        case .type: bytes = Array(ValueType(of: value).rawValue.utf8)
        case .openStep: throw CommandFailure("Conversion to OpenStep format is not supported")
        }
        let lineFormat = format == .raw || format == .type
        if options.outputPath == "-" || (options.outputPath == nil && lineFormat) {
            printOutput(bytes + (options.terminatingNewline && lineFormat ? [UInt8(ascii: "\n")] : []))
            return
        }
        try writeFile(bytes, to: target, expecting: target == path ? expected : nil)
        if format == .objc, header {
            try writeFile(Array(PlutilTextForm.objcHeader(value, sourcePath: path).utf8), to: replacingExtension(of: target, with: "h"))
        }
    }

    /// How a verb writing `format` output (nil: the input's own form) reads
    /// `path`: to edit it in place when the output replaces it (no `-o`
    /// naming another file, no `-e`, not printed), else only to read it.
    package static func purpose(reading path: String, format: Format?, options: Options) -> InputFile.Purpose {
        if options.outputPath == nil, format == .raw || format == .type { return .reading }
        // The output's name depends on the format only for swift and objc, never an input's own form.
        let target = outputPath(for: path, format: format ?? .xml, options: options)
        return InputFile.names(target, sameFileAs: path) ? .editingInPlace : .reading
    }

    /// Where the output of `path` goes when it is a file.
    package static func outputPath(for path: String, format: Format, options: Options) -> String {
        if let output = options.outputPath { return output }
        var result = path
        if let outputExtension = options.outputExtension { result = replacingExtension(of: result, with: outputExtension) }
        switch format {
        case .objc: return replacingExtension(of: result, with: "m")
        case .swift: return replacingExtension(of: result, with: "swift")
        default: return result
        }
    }

    /// `path` with the text after its last `.` replaced (unchanged without
    /// one): the output file's name for `-e` and for `-convert objc`/`swift`.
    package static func replacingExtension(of path: String, with newExtension: String) -> String {
        guard path != ".", path != "..", let dot = path.utf8.lastIndex(of: UInt8(ascii: ".")), dot != path.startIndex else { return path }
        return String(path[...dot]) + newExtension
    }

    /// The bytes of `value` in XML or binary, dictionaries' keys sorted.
    package static func encode(_ value: PropertyListValue, _ format: PropertyListFormat) throws(CommandFailure) -> [UInt8] {
        do {
            return try PropertyListWriter().encode(PlutilTextForm.sortingKeys(value, by: <), format: format)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// Writes a whole file safely (beside, then renamed over); a file named
    /// `-` is a file here, as `plutil` writes it, not standard output. A
    /// symbolic link is written through to the file it names, as Apple's
    /// `plutil` writes (scripts that call it rely on that; `ict`'s own verbs
    /// refuse a link unless `--follow-symlinks`).
    package static func writeFile(_ bytes: [UInt8], to path: String, expecting expected: FileStamp? = nil) throws(CommandFailure) {
        let name = path == "-" ? "./-" : path
        do throws(SystemCallError) {
            _ = try FileInfo.of(path: PathName.folder(of: name))
        } catch {
            throw CommandFailure(systemMessage(error))
        }
        do {
            try OutputFile.write(bytes, to: name, expecting: expected, links: .followed)
        } catch {
            throw CommandFailure("(The operation could not be completed. \(error.description))")
        }
    }

    /// Runs the read-modify-write `body` of `path` in a coordinated write,
    /// passing the file's stamp taken before it is read (nil for standard input).
    package static func editing(_ path: String, _ body: (FileStamp?) throws(CommandFailure) -> Void) throws(CommandFailure) {
        let lock: CoordinatedAccess?
        switch ItemLockSupport.exclusive(path) {
        case .success(let taken): lock = taken
        case .failure(let failure):
            throw CommandFailure("(The operation could not be completed. cannot lock it for editing: \(failure.message))")
        }
        defer { lock?.release() }
        try body(path == "-" ? nil : FileStamp(path: path))
    }
}
