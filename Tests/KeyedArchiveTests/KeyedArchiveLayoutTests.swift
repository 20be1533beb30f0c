import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// `KeyedArchiveLayout`: recorded from a binary archive whose objects are not
/// numbered by the writer's rule, followed when writing, dropped when it no
/// longer fits, carried in the JSON form.
struct KeyedArchiveLayoutTests {
    static let joinChatWindow = "realworld/adium-adium/Frameworks/Adium/Resources/JoinChatWindow.nib/keyedobjects.nib"

    @Test func recordsTheTopKeyOrderOfXcode() throws {
        let archive = try KeyedArchiveReader(keepsLayout: true).read(XcodeOrderArchive.bytes)
        #expect(archive.layout == KeyedArchiveLayout(topKeys: ["$version", "$archiver", "$top", "$objects"]))
        #expect(try KeyedArchiveWriter().encode(archive) == XcodeOrderArchive.bytes)
        // Without the layout, the rule's order: the same archive as ClassNameOnlyArchive.
        #expect(try KeyedArchiveWriter().encode(KeyedArchiveReader().read(XcodeOrderArchive.bytes)) == ClassNameOnlyArchive.bytes)
    }

    @Test func recordsNothingForAnArchiveNumberedByTheRule() throws {
        #expect(try KeyedArchiveReader(keepsLayout: true).read(ClassNameOnlyArchive.bytes).layout == nil)
    }

    /// A placement referring to an object that is not there: the whole layout is dropped.
    @Test func dropsALayoutThatNoLongerFits() throws {
        var archive = try KeyedArchiveReader(keepsLayout: true).read(XcodeOrderArchive.bytes)
        archive.layout?.placements[3] = .shared(99)
        #expect(try KeyedArchiveWriter().encode(archive) == ClassNameOnlyArchive.bytes)
    }

    @Test func travelsThroughTheJSONForm() throws {
        let layout = KeyedArchiveLayout(
            topKeys: ["$version", "$archiver", "$top", "$objects"],
            placements: [7: .new, 3: .shared(1), 12: .copied(10)])
        #expect(
            layout.jsonForm
                == .dictionary([
                    "topKeys": ["$version", "$archiver", "$top", "$objects"], "new": [7], "shared": [[3, 1]], "copied": [[12, 10]],
                ]))
        #expect(try KeyedArchiveLayout(jsonForm: layout.jsonForm) == layout)
    }

    @Test func refusesALayoutOfTheWrongShape() {
        #expect { try KeyedArchiveLayout(jsonForm: .dictionary(["shared": [[3]]])) } throws: { error in
            (error as? KeyedArchiveError)?.keyPath.description == "layout.shared[0]"
        }
        #expect { try KeyedArchiveLayout(jsonForm: .dictionary(["topKeys": ["$top"]])) } throws: { error in
            (error as? KeyedArchiveError)?.keyPath.description == "layout.topKeys"
        }
        #expect { try KeyedArchiveLayout(jsonForm: .dictionary(["order": []])) } throws: { error in
            (error as? KeyedArchiveError)?.code == .notAnArchive
        }
    }

    /// Interface Builder shares some equal class names and numbers and not
    /// others (`NSCell` is one object in one class chain, another in the
    /// next): the layout names those placements, and only with it do the
    /// file's bytes come back.
    @Test(.interopCorpus)
    func rewritesAnInterfaceBuilderNibByteForByte() throws {
        let original = try Fixtures.interopBytes(Self.joinChatWindow)
        let archive = try KeyedArchiveReader(keepsLayout: true).read(original)
        let layout = try #require(archive.layout)
        #expect(layout.topKeys == KeyedArchiveLayout.standardTopKeys)
        #expect(layout.placements.count == 23)
        #expect(Data(try KeyedArchiveWriter().encode(archive)) == original)
        var unrecorded = archive
        unrecorded.layout = nil
        #expect(Data(try KeyedArchiveWriter().encode(unrecorded)) != original)
    }
}
