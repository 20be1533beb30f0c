import CoreDataFiles
import PropertyList
import SystemSupport

/// What `ict inspect`, `convert` and `validate` share for Core Data models: recognising one and turning the
/// library's errors and findings into problems. The reading and checking are CoreDataFiles'.
package enum ModelSupport {
    /// The model form of `path`: an `.xcdatamodeld`, `.xcdatamodel` or `.momd` folder, or a `.mom` file whose
    /// archive's top object is an NSManagedObjectModel (any other `.mom` is left to the property-list commands).
    package static func form(of path: String) -> ModelFileForm? {
        guard path != "-", let form = ModelFileForm.of(itemAtPath: path) else { return nil }
        guard form == .compiledModel else { return form }
        guard let file = try? OpenFile(path: path), let bytes = try? file.readToEnd(limit: 64 << 20) else { return nil }
        return ManagedObjectModelReader.isCompiledModel(bytes) ? form : nil
    }

    /// Reads the model at `path`.
    ///
    /// - Throws: `Problem` saying where.
    package static func read(_ path: String) throws(Problem) -> ModelDocument {
        do {
            return try ManagedObjectModelReader().readDocument(atPath: DocumentSupport.trimmingTrailingSlashes(path))
        } catch {
            throw problem(error, path: path)
        }
    }

    /// A library error as a problem: a line as `FILE:LINE:1`, a key path as `(at KEY PATH)`, another place as
    /// `FILE:PLACE`.
    package static func problem(_ error: CoreDataError, path: String) -> Problem {
        let file = error.pathText ?? path
        switch error.place {
        case .none: return Problem(path: file, error.message)
        case .line(let line): return Problem(path: file, location: .lineColumn(line: line, column: 1), error.message)
        case .byte(let offset): return Problem(path: file, location: .byte(offset), error.message)
        case .keyPath(let keyPath): return Problem(path: file, error.message, keyPath: keyPath)
        case .entity, .table: return Problem(path: file, location: .entry(error.placeDescription ?? ""), error.message)
        }
    }

    /// A validator's finding as a problem of the file the model was read from.
    package static func problem(_ finding: ModelValidator.Finding, in document: ModelDocument) -> Problem {
        let severity: Problem.Severity = finding.severity == .error ? .error : .warning
        var place = "entity \(finding.entity)"
        if let property = finding.property { place += ", property \(property)" }
        if let line = finding.line {
            return Problem(path: document.filePathText, location: .lineColumn(line: line, column: 1), severity: severity, finding.message, keyPath: place)
        }
        return Problem(path: document.filePathText, location: .entry(place), severity: severity, finding.message)
    }
}
