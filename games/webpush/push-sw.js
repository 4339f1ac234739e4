// The site's service worker (served at /push-sw.js, scope "/"): it shows the
// "your turn" the site pushes (games/webpush) and opens the match when clicked.
// It caches nothing and answers no fetch: pages load as without it.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = {};
  }
  const title = typeof data.title === "string" ? data.title : "Your turn";
  const options = {
    body: typeof data.body === "string" ? data.body : "",
    // One notification per match: a newer "your turn" replaces the older one.
    tag: typeof data.tag === "string" ? data.tag : "your-turn",
    icon: "/static/games/favicon.svg",
    data: { url: typeof data.url === "string" ? data.url : "/" },
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data.url || "/", self.location.origin);
  if (target.origin !== self.location.origin) return; // only the site's own pages
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      for (const win of windows) {
        if (win.url === target.href && "focus" in win) return win.focus();
      }
      return self.clients.openWindow(target.href);
    }),
  );
});
