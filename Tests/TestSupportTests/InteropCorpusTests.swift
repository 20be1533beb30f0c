import TestSupport
import Testing

/// The interop corpus condition: run with the corpus, skip without it, fail
/// without it on CI (`CI=true`, as GitHub Actions and most CI services set it).
struct InteropCorpusTests {
    @Test(
        arguments: [
            (true, [:], InteropCorpus.Decision.run),
            (true, ["CI": "true"], .run),
            (false, [:], .skip),
            (false, ["CI": "false"], .skip),
            (false, ["CI": ""], .skip),
            (false, ["CI": "true"], .fail),
            (false, ["CI": "TRUE"], .fail),
        ] as [(Bool, [String: String], InteropCorpus.Decision)])
    func decides(isPresent: Bool, environment: [String: String], expected: InteropCorpus.Decision) {
        #expect(InteropCorpus.decision(isPresent: isPresent, environment: environment) == expected)
    }

    /// The trait's condition: true to run, false to skip, and a thrown error
    /// with the one message on CI (which Swift Testing records as a failure).
    @Test func theConditionRunsSkipsOrThrowsTheOneMessage() async throws {
        #expect(try await ConditionTrait.interopCorpus(isPresent: { true }, environment: ["CI": "true"]).evaluate())
        #expect(try await !ConditionTrait.interopCorpus(isPresent: { false }, environment: [:]).evaluate())
        let error = await #expect(throws: InteropCorpus.Absent.self) {
            try await ConditionTrait.interopCorpus(isPresent: { false }, environment: ["CI": "true"]).evaluate()
        }
        #expect(error?.description == InteropCorpus.absentMessage)
        #expect(ConditionTrait.interopCorpus.comments.map(\.rawValue) == [InteropCorpus.absentMessage])
    }

    @Test func theCorpusIsBesideTheRepository() {
        #expect(InteropCorpus.root.path == Repository.root.deletingLastPathComponent().path + "/shared/interop")
        #expect(Repository.path("Package.swift") == Repository.root.path + "/Package.swift")
    }
}
