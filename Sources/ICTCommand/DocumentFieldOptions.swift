import ArgumentParser
import DocumentFormats
import ICTKitTooling
import PropertyList
import SystemSupport

/// The fields `create` and `set` take, any of them.
struct DocumentFieldOptions: ParsableArguments {
    @Option(help: "The first name (FIRST_NAME).")
    var firstName: String?

    @Option(help: "The last name (LAST_NAME).")
    var lastName: String?

    @Option(help: "The display name (DISPLAY_NAME in the data and DISPLAY NAME in the metadata).")
    var displayName: String?

    @Option(help: "The favourite number (FAVORITE_NUMBER, stored as a 32-bit real).")
    var favoriteNumber: Double?

    @Option(
        help:
            "A PNG photo; in an .ict stored as given up to 560×560, else resized to fit, and its 280×280 thumbnail made; in a .ptk stored as given, its 145×145 thumbnail cropped from its middle."
    )
    var photo: String?

    @Option(help: "The text of a note (.icfnote, .dox): the whole file, as UTF-8.")
    var text: String?

    func validate() throws {
        let texts = [("--first-name", firstName), ("--last-name", lastName), ("--display-name", displayName), ("--text", text)]
        for (option, text) in texts {
            if let problem = ArgumentText.notUTF8Problem(text, option: option) { throw ValidationError(problem) }
        }
    }

    var isEmpty: Bool { firstName == nil && lastName == nil && displayName == nil && favoriteNumber == nil && photo == nil && text == nil }

    /// Why these options do not fit a document of `kind`, or nil when they do:
    /// an `.ict` has no text, a `.ptk` only a photo, a note only its text.
    func problem(for kind: DocumentKind) -> String? {
        let hasFields = firstName != nil || lastName != nil || displayName != nil || favoriteNumber != nil
        switch kind {
        case .ict: return text == nil ? nil : "--text is a note's (.icfnote, .dox), not an .ict document's"
        case .ptk: return hasFields || text != nil ? "a .ptk document holds only a photo: give --photo" : nil
        case .icfnote, .dox: return hasFields || photo != nil ? "a note holds only its text: give --text" : nil
        }
    }

    /// Applies `--photo` to a `.ptk` document; returns whether anything changed.
    ///
    /// - Throws: `ICTDocumentError` from the document, a `Problem` at the photo file when it cannot be read or used.
    func apply(to document: PTKDocumentFile) throws -> Bool {
        guard let photo else { return false }
        do {
            return try document.setPhoto(pngBytes: try Self.readPhoto(photo))
        } catch let error as ICTDocumentError {
            throw Problem(path: photo, error.message)
        }
    }

    /// The bytes of the photo file at `path`.
    ///
    /// - Throws: a `Problem` at the file when it cannot be read.
    static func readPhoto(_ path: String) throws -> [UInt8] {
        do {
            return try DocumentSupport.readFile(path)
        } catch {
            throw Problem(path: path, error)
        }
    }

    /// Applies the options given to `document`; returns whether anything changed.
    ///
    /// - Throws: `ICTDocumentError` from the document, a `Problem` at the photo file when it cannot be read or used.
    func apply(to document: ICTDocumentFile) throws -> Bool {
        var changed = false
        if let firstName { changed = try document.setFirstName(firstName) || changed }
        if let lastName { changed = try document.setLastName(lastName) || changed }
        if let displayName { changed = try document.setDisplayName(displayName) || changed }
        if let favoriteNumber { changed = try document.setFavoriteNumber(favoriteNumber) || changed }
        if let photo {
            let bytes = try Self.readPhoto(photo)
            do {
                changed = try document.setPhoto(pngBytes: bytes) || changed
            } catch {
                throw Problem(path: photo, error.message)
            }
        }
        return changed
    }
}
