import UserAgent

/// Consoles, Windows Phone, TVs, bots, HTTP tools and degenerate input.
let otherAgents: [UserAgentCase] = [
    UserAgentCase(
        "PlayStation 4", "Mozilla/5.0 (PlayStation 4 5.55) AppleWebKit/601.2 (KHTML, like Gecko)",
        browser: nil, os: nil, type: .playStation, device: "PlayStation 4", name: "Sony PlayStation 4"),
    UserAgentCase(
        "PlayStation 5",
        "Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15",
        browser: nil, os: nil, type: .playStation, device: "PlayStation 5", name: "Sony PlayStation 5"),
    UserAgentCase(
        "PlayStation Vita", "Mozilla/5.0 (PlayStation Vita 3.61) AppleWebKit/537.73 (KHTML, like Gecko) Silk/3.2",
        browser: "Silk 3", os: nil, type: .playStation, device: "PlayStation Vita", name: "Sony PlayStation Vita"),
    UserAgentCase(
        "Edge on Windows 10 Mobile (Lumia 950)",
        "Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0.2743.116 Mobile Safari/537.36 Edge/15.15063",
        browser: "Edge 15", os: "Windows Phone 10.0", type: .windowsPhone, device: "Lumia 950", name: "Microsoft Lumia 950"),
    UserAgentCase(
        "IE Mobile 10 on Windows Phone 8 (Lumia 920)",
        "Mozilla/5.0 (compatible; MSIE 10.0; Windows Phone 8.0; Trident/6.0; IEMobile/10.0; ARM; Touch; NOKIA; Lumia 920)",
        browser: "IE Mobile 10", os: "Windows Phone 8.0", type: .windowsPhone, device: "Lumia 920", name: "Nokia Lumia 920"),
    UserAgentCase(
        "IE Mobile 11 on Windows Phone 8.1 (Lumia 635)",
        "Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; NOKIA; Lumia 635) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, like Gecko) Mobile Safari/537",
        browser: "IE Mobile 11", os: "Windows Phone 8.1", type: .windowsPhone, device: "Lumia 635", name: "Nokia Lumia 635"),
    UserAgentCase(
        "Xbox One",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edge/44.18363.8131",
        browser: "Edge 44", os: "Windows 10", type: .unknown, device: "Xbox One", name: "Microsoft Xbox One"),
    UserAgentCase(
        "Samsung smart TV (Tizen)",
        "Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36",
        browser: "Samsung Internet 4", os: "Tizen 6.0", type: .unknown),
    UserAgentCase(
        "Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        browser: "Googlebot 2.1", os: nil, type: .unknown),
    UserAgentCase(
        "Googlebot smartphone (claims Android)",
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        browser: "Googlebot 2.1", os: nil, type: .unknown),
    UserAgentCase(
        "YandexBot", "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
        browser: "YandexBot 3.0", os: nil, type: .unknown),
    UserAgentCase(
        "bingbot", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        browser: "bingbot 2.0", os: nil, type: .unknown),
    UserAgentCase(
        "Headless Chrome",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36",
        browser: "HeadlessChrome 120.0.6099.28", os: nil, type: .unknown),
    UserAgentCase("curl", "curl/8.4.0", browser: "curl 8.4.0", os: nil, type: .unknown),
    UserAgentCase("Wget", "Wget/1.21.3", browser: "Wget 1.21.3", os: nil, type: .unknown),
    UserAgentCase("python-requests", "python-requests/2.31.0", browser: "python-requests 2.31.0", os: nil, type: .unknown),
    UserAgentCase("okhttp", "okhttp/4.12.0", browser: "okhttp 4.12.0", os: nil, type: .unknown),
    UserAgentCase("empty header", "", browser: nil, os: nil, type: .unknown),
    UserAgentCase("bare Mozilla/5.0", "Mozilla/5.0", browser: nil, os: nil, type: .unknown),
    UserAgentCase("a single word", "hello", browser: nil, os: nil, type: .unknown),
    UserAgentCase(
        "unbalanced parentheses", "Mozilla/5.0 ((Windows NT 10.0; Win64 Chrome/120",
        browser: nil, os: "Windows 10", type: .pc, device: "PC", name: "PC"),
    UserAgentCase(
        "text past 1 KiB is ignored",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) " + String(repeating: "A", count: 2000) + " Chrome/120.0.0.0",
        browser: nil, os: "Windows 10", type: .pc, device: "PC", name: "PC"),
]
