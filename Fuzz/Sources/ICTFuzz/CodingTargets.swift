import DocumentFormats
import Foundation
import KeyedArchive
import KeyedCoding

// Targets for the readers issue 13 added: the NSCoder-shaped unarchiver
// and the .ict JSON form.

/// Every class `KeyedObjectUnarchiver` decodes without an app's own types.
private let foundationStandIns: [Any.Type] = [
    String.self, Data.self, Date.self, UUID.self, URL.self, ArchivedNumber.self, ArchivedNull.self,
    [Any].self, [AnyHashable: Any].self, Set<AnyHashable>.self,
]

/// `KeyedObjectUnarchiver`: the root object (`root`, then `DATA`) with every
/// Foundation class allowed; what decodes without an error archives again
/// with `KeyedObjectArchiver`, and that archive decodes without an error.
func fuzzKeyedCoder(_ bytes: [UInt8]) {
    let data = Data(bytes)
    for key in ["root", ICTDocumentFormat.topKey] {
        guard let unarchiver = try? KeyedObjectUnarchiver(forReadingFrom: data, limits: fuzzArchiveLimits) else { return }
        guard let object = unarchiver.decodeObject(of: foundationStandIns, forKey: key), unarchiver.error == nil else { continue }
        let archived: Data
        do {
            archived = try KeyedObjectArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        } catch {
            // A value the archiver refuses must say so by a thrown error, as here; nothing more to check.
            continue
        }
        do {
            let again = try KeyedObjectUnarchiver(forReadingFrom: archived, limits: fuzzArchiveLimits)
            let decoded = again.decodeObject(of: foundationStandIns, forKey: "root")
            require(
                decoded != nil && again.error == nil,
                "what KeyedObjectArchiver wrote of \(brief(object)) does not decode: \(again.error.map { "\($0)" } ?? "nil")")
        } catch {
            require(false, "KeyedObjectArchiver wrote an archive KeyedObjectUnarchiver cannot read: \(error)")
        }
    }
}

/// The `.ict` JSON form: what reads, written again, reads back equal
/// (a NaN favourite number equal to a NaN).
func fuzzDocumentJSONForm(_ bytes: [UInt8]) {
    guard let form = try? bytes.withUnsafeBytes({ (buffer) throws(ICTDocumentError) in try ICTDocumentJSONForm(jsonBytes: buffer) }) else { return }
    let written = form.jsonBytes()
    do {
        let again = try written.withUnsafeBytes { (buffer) throws(ICTDocumentError) in try ICTDocumentJSONForm(jsonBytes: buffer) }
        var left = form
        var right = again
        let numbersAgree: Bool
        switch (left.favoriteNumber, right.favoriteNumber) {
        case (nil, nil): numbersAgree = true
        case (let x?, let y?): numbersAgree = sameReal(x, y)
        default: numbersAgree = false
        }
        left.favoriteNumber = nil
        right.favoriteNumber = nil
        require(numbersAgree && left == right, "JSON form round trip changed \(brief(form)) into \(brief(again))")
    } catch {
        require(false, "the JSON form reader refused what its writer wrote: \(error)")
    }
}
