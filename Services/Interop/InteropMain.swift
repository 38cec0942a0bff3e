@main struct InteropMain { static func main() {} }
