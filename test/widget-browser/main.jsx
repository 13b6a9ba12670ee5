// Mounts the unchanged @hotglue/widget exactly as an embedding app does, pointed at
// the Tapline under test. The test passes the settings in the page's query string.
import React, { useEffect } from 'react';
import { createRoot } from 'react-dom/client';
// The named export is the same component as the default one; the default import would
// be the whole CommonJS module here, since this folder sits in a "type": "module" package.
import { HotglueConfig, useHotglue } from '@hotglue/widget';

const q = new URLSearchParams(window.location.search);

function App() {
  const { openWidget } = useHotglue();
  useEffect(() => {
    openWidget(q.get('tenant'), { jwtToken: q.get('token') || undefined });
  }, []);
  return <p id="host-app">host app</p>;
}

createRoot(document.getElementById('root')).render(
  <HotglueConfig config={{ apiUrl: q.get('apiUrl'), envId: q.get('envId'), apiKey: q.get('apiKey') }}>
    <App />
  </HotglueConfig>,
);
