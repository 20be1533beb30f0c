#if !canImport(Darwin)
import AppleCompatibility
import Foundation
import Testing

/// `NSPredicate(format:)` and `NSSortDescriptor(key:ascending:)`, which
/// swift-corelibs-foundation marks unavailable, as the sources write them for
/// a metadata query.
struct NSPredicateFormatTests {
    @Test func theNotesAppsFormatIsReadForTheQuery() {
        let predicate = NSPredicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, "*.icfnote")
        #expect(predicate.metadataQueryPredicate?.predicateFormat == "kMDItemFSName LIKE '*.icfnote'")
        #expect(predicate.metadataQueryPredicateError == nil)
        let array = NSPredicate(format: "%K LIKE %@", argumentArray: [NSMetadataItemFSNameKey, "*.icfnote"])
        #expect(array.metadataQueryPredicate == predicate.metadataQueryPredicate)
        let quoted = NSPredicate(format: "%K LIKE '*.icfnote'", NSMetadataItemFSNameKey)
        #expect(quoted.metadataQueryPredicate == predicate.metadataQueryPredicate)
        // An NSString argument, as Objective-C-minded code passes one.
        let string = NSPredicate(format: "%K == %@", NSMetadataItemContentTypeTreeKey, NSString(string: "public.text"))
        #expect(string.metadataQueryPredicate?.predicateFormat == "kMDItemContentTypeTree == 'public.text'")
    }

    /// Apple raises an exception for a format it cannot parse; here the
    /// predicate is made and says what a query cannot take, and where.
    @Test func aFormatTheQueryCannotTakeSaysWhere() {
        let predicate = NSPredicate(format: "%K LIKE[c] %@", NSMetadataItemFSNameKey, "*.icfnote")
        #expect(predicate.metadataQueryPredicate == nil)
        let error = predicate.metadataQueryPredicateError
        #expect(error?.offset == 7)
        #expect(
            error?.description
                == "predicate format '%K LIKE[c] %@' at character 7: LIKE's options ([c], [d]) are not supported: names are compared case-sensitively")
        let missingArgument = NSPredicate(format: "%K LIKE %@", argumentArray: [NSMetadataItemFSNameKey])
        #expect(missingArgument.metadataQueryPredicateError?.reason == "%@ has no argument left to take")
        let notAString = NSPredicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, 42)
        #expect(notAString.metadataQueryPredicateError?.reason == "the argument of %@ is a Int, not a string")
    }

    /// A predicate made otherwise is no format at all; a format predicate is
    /// for the query alone, false for every object evaluated.
    @Test func otherPredicatesAreNoFormats() {
        let block = NSPredicate { _, _ in true }
        #expect(block.metadataQueryPredicate == nil && block.metadataQueryPredicateError == nil)
        #expect(NSPredicate(value: true).metadataQueryPredicate == nil)
        let format = NSPredicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, "*")
        #expect(!format.evaluate(with: "Note.icfnote"))
    }

    @Test func aSortDescriptorByKeyKeepsItsOrder() {
        #expect(NSSortDescriptor(key: NSMetadataItemFSNameKey, ascending: true).ascending)
        #expect(!NSSortDescriptor(key: NSMetadataItemFSContentChangeDateKey, ascending: false).ascending)
        #expect(NSSortDescriptor(key: nil, ascending: true).ascending)
    }
}
#endif
