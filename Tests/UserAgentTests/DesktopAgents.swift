import UserAgent

/// Desktop browsers on Windows, macOS, Linux and Chrome OS.
let desktopAgents: [UserAgentCase] = [
    UserAgentCase(
        "Chrome on Windows 10/11",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        browser: "Chrome 120", os: "Windows 10", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Chrome on macOS",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        browser: "Chrome 120", os: "macOS 10.15.7", type: .pc, device: "Mac", name: "Apple Mac"),
    UserAgentCase(
        "Chrome on Linux",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        browser: "Chrome 120", os: "Linux", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Chrome on Windows 7",
        "Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36",
        browser: "Chrome 109", os: "Windows 7", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Firefox on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
        browser: "Firefox 121", os: "Windows 10", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Firefox on macOS",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0",
        browser: "Firefox 121", os: "macOS 10.15", type: .pc, device: "Mac", name: "Apple Mac"),
    UserAgentCase(
        "Firefox on Ubuntu",
        "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        browser: "Firefox 121", os: "Linux", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Firefox on Windows XP",
        "Mozilla/5.0 (Windows NT 5.1; rv:52.0) Gecko/20100101 Firefox/52.0",
        browser: "Firefox 52", os: "Windows XP", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Safari on macOS",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
        browser: "Safari 17.1", os: "macOS 10.15.7", type: .pc, device: "Mac", name: "Apple Mac"),
    UserAgentCase(
        "Edge on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91",
        browser: "Edge 120", os: "Windows 10", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Edge on macOS",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91",
        browser: "Edge 120", os: "macOS 10.15.7", type: .pc, device: "Mac", name: "Apple Mac"),
    UserAgentCase(
        "Opera on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36 OPR/105.0.0.0",
        browser: "Opera 105", os: "Windows 10", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Opera 12 (Presto) on Windows 7",
        "Opera/9.80 (Windows NT 6.1; WOW64) Presto/2.12.388 Version/12.16",
        browser: "Opera 12", os: "Windows 7", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Yandex Browser on Windows",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 YaBrowser/24.1.0.0 Safari/537.36",
        browser: "Yandex Browser 24", os: "Windows 10", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Internet Explorer 11 on Windows 8.1",
        "Mozilla/5.0 (Windows NT 6.3; Trident/7.0; rv:11.0) like Gecko",
        browser: "Internet Explorer 11", os: "Windows 8.1", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "Chrome on Chrome OS",
        "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        browser: "Chrome 120", os: "Chrome OS", type: .pc, device: "Chromebook", name: "Chromebook"),
]
