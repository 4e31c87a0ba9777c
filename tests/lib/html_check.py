#!/usr/bin/python3
"""An ethtune --html page in headless Chromium: charts drawn, axes labelled, no console errors."""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

JS = """
return Array.from(document.querySelectorAll('svg.chart')).map(function (s) {
	var data = Array.from(s.querySelectorAll('.data')), drawn = 0;
	data.forEach(function (e) { var b = e.getBBox(); if (b.width > 0 || b.height > 0) drawn++; });
	var lab = function (c) { var e = s.querySelector('.axis-label.' + c);
		return e ? e.textContent.trim() : ''; };
	var b = s.getBBox();
	return { title: s.getAttribute('aria-label'), w: b.width, h: b.height, data: data.length,
		 drawn: drawn, x: lab('x'), y: lab('y') };
});
"""


def main():
	page, shot, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
	o = webdriver.ChromeOptions()
	o.binary_location = '/usr/bin/chromium'
	for a in ('--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
		  '--disable-background-networking', '--disable-component-update', '--disable-sync',
		  '--window-size=1100,1400'):
		o.add_argument(a)
	o.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
	d = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=o)
	bad = []
	try:
		d.get('file://' + page)
		charts = d.execute_script(JS)
		d.save_screenshot(shot)
		errs = [l['message'] for l in d.get_log('browser') if l['level'] == 'SEVERE']
	finally:
		d.quit()
	if len(charts) < want:
		bad.append('%d charts, want at least %d' % (len(charts), want))
	for c in charts:
		if not (c['w'] > 0 and c['h'] > 0 and c['drawn'] > 0):
			bad.append('chart "%s" is empty (%d of %d data elements drawn)' % (c['title'], c['drawn'], c['data']))
		if not c['x'] or not c['y']:
			bad.append('chart "%s" has an unlabelled axis (x "%s", y "%s")' % (c['title'], c['x'], c['y']))
	bad += ['console: ' + e for e in errs]
	print('%d charts: %s' % (len(charts), '; '.join('%s: %d drawn, x "%s", y "%s"' % (c['title'], c['drawn'], c['x'], c['y']) for c in charts)))
	for b in bad:
		print('bad: ' + b)
	sys.exit(1 if bad else 0)


main()
