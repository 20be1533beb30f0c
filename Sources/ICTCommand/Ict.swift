import ArgumentParser

@main
struct Ict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ict",
        abstract: "Inspect, validate and convert property lists and .ict document packages."
    )
}
