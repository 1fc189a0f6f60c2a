// swift-tools-version:6.0
// Fuzz targets for libFuzzer: `make fuzz` builds them with -sanitize=fuzzer and runs each for a
// bounded time. Not part of the main package (libFuzzer brings its own main).
import PackageDescription

let package = Package(
    name: "medrender-fuzz",
    dependencies: [.package(path: "medrender")],
    targets: [
        .executableTarget(
            name: "FuzzPreset",
            dependencies: [
                .product(name: "MedrenderPresets", package: "medrender"),
                .product(name: "MedrenderCore", package: "medrender"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzSound",
            dependencies: [
                .product(name: "MedrenderIO", package: "medrender"),
                .product(name: "MedrenderCore", package: "medrender"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ],
    swiftLanguageModes: [.v6]
)
