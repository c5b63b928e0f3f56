import Foundation

let status = IAPSim.run(arguments: Array(CommandLine.arguments.dropFirst()), context: .live(), console: .live())
exit(status)
