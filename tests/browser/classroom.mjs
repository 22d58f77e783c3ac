// classroom.mjs - the projector at 1280x720 and 1400x900: a lesson, the class's guess, the run, the answer beside the guess and the article; everything on screen, nothing behind a hover
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';
import { axeCheck } from './axe.mjs';

const chromium = await browserOrSkip('test-browser (classroom)');
const tmp = tempDir('numalab-classroom-');
const server = await startServer(tmp);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

// Whether el (a selector) lies inside the viewport, whole.
const inView = (page, sel) => page.evaluate((s) => {
  const el = document.querySelector(s);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight + 0.5 && r.right <= window.innerWidth + 0.5;
}, sel);

// The drawn chart's x axis (its labels included) and legend end above the bottom of the screen, and the legend clears the y axis's title.
const chartFits = (page) => page.evaluate(() => {
  const fig = document.querySelector('#results figure.chart.classroom-current');
  const c = fig && window.Chart.getChart(fig.querySelector('canvas'));
  if (!c) return { ok: false, why: 'no chart shown' };
  const box = c.canvas.getBoundingClientRect();
  const x = c.scales.x;
  const bottom = box.top + Math.max(x.bottom, c.legend && c.legend.options.display ? c.legend.bottom : 0);
  const yTitleRight = box.left + c.scales.y.left + 30;
  const legendLeft = c.legend && c.legend.options.display ? box.left + c.legend.left : Infinity;
  const legendBelow = !c.legend || !c.legend.options.display || c.legend.top >= c.scales.y.bottom;
  const scale = fig.querySelector('.heat-legend:not([hidden])');
  const scaleBottom = scale ? scale.getBoundingClientRect().bottom : 0;
  return {
    ok: bottom <= window.innerHeight && box.bottom <= window.innerHeight && scaleBottom <= window.innerHeight && (legendBelow || legendLeft > yTitleRight),
    why: `chart ends at ${Math.round(box.bottom)}, axis/legend at ${Math.round(bottom)}, colour scale at ${Math.round(scaleBottom)}, legend below the plot: ${legendBelow}; screen ${window.innerHeight}`,
  };
});

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const errors = [];
try {
  const schema = await (await fetch(`${base}api/experiments`)).json();
  for (const e of schema)
    check(Array.isArray(e.lessons) && e.lessons.length >= 1 && e.lessons.length <= 3, `${e.name} offers 1 to 3 lessons (${(e.lessons || []).length})`);
  const fs = schema.find((e) => e.name === 'false_sharing');
  const lesson = fs.lessons.find((l) => Number.isFinite(l.article_value)) || fs.lessons[0];

  for (const [w, hgt] of [[1280, 720], [1400, 900]]) {
    const page = await (await browser.newContext({ viewport: { width: w, height: hgt } })).newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${base}?classroom#/experiments/false_sharing`);
    await page.waitForSelector('body.classroom #lesson-pick option', { state: 'attached', timeout: 20000 });
    const options = await page.$$eval('#lesson-pick option', (o) => o.map((x) => x.value));
    check(options.join() === fs.lessons.map((l) => l.id).join(), `the picker lists the experiment's lessons (${options})`);
    await page.selectOption('#lesson-pick', lesson.id);
    check((await page.textContent('#lesson-question')).toLowerCase().includes(lesson.question.slice(0, 30).toLowerCase()), 'the question is on screen');
    const body = await page.textContent('body');
    check(!/press Run, or open/.test(await page.evaluate(() => [...document.querySelectorAll('.run-empty')].filter((e) => e.offsetParent).map((e) => e.textContent).join(''))),
      'no "set the parameters and press Run" while the form is hidden');
    check(!/hover/i.test(await page.evaluate(() => document.body.innerText)), 'nothing on screen says "hover"');
    for (const [k, v] of Object.entries(lesson.params))
      check((await page.textContent('#lesson-params')).includes(`${k} = ${v}`), `the screen shows ${k} = ${v} before the run`);
    check(await page.isVisible('#lesson-params'), 'the parameters that will run are on screen');
    check(await inView(page, '#lesson-guess') && await inView(page, '#run-button'), `the guess and Run are on screen at ${w}x${hgt}`);
    const qpx = await page.evaluate(() => parseFloat(getComputedStyle(document.getElementById('lesson-question')).fontSize));
    check(qpx >= 24, `the question is in projector type (${qpx} px)`);
    await page.fill('#lesson-guess', '2.5');
    await page.screenshot({ path: join(SHOTS, `classroom-lesson-${w}x${hgt}.png`) });
    if (w === 1280) await axeCheck(page, 'classroom with a lesson', check);

    await page.click('#run-button');
    await page.waitForFunction(() => /^#\/runs\/\d+$/.test(location.hash), null, { timeout: 20000 });
    const id = (await page.evaluate(() => location.hash)).match(/(\d+)$/)[1];
    const run = await (await fetch(`${base}api/runs/${id}`)).json();
    for (const [k, v] of Object.entries(lesson.params)) check(String(run.params[k]) === String(v), `the run was started with the lesson's ${k}=${v} (${run.params[k]})`);
    await page.waitForSelector('#status[data-status="done"]', { timeout: 90000 });
    // this machine's bar, or (when the verdict disowns its number on a busy machine) the verdict's reason instead
    await page.waitForSelector('#lesson-result .answer-machine, #lesson-result .answer-disowned', { timeout: 20000 });
    await page.waitForTimeout(900);
    const rows = await page.$$eval('#lesson-result tbody tr th', (t) => t.map((x) => x.textContent));
    if (await page.$('#lesson-result .answer-disowned')) {
      check(rows.length === 2 && /guess/.test(rows[0]) && /article/.test(rows[1]), `a disowned answer has no bar beside the guess and the article (${rows})`);
      check(/^this machine: not a valid measurement/.test(await page.textContent('#answer-mark')), 'and says why');
    } else {
      check(rows.length === 3 && /guess/.test(rows[0]) && /machine/.test(rows[1]) && /article/.test(rows[2]), `the answer stands beside the guess and the article (${rows})`);
    }
    const values = await page.$$eval('#lesson-result .answer-value', (t) => t.map((x) => x.textContent));
    check(values[0] === '2.5×', `the guess is written out (${values})`);
    if (!(await page.$('#lesson-result .answer-disowned'))) {
      // this machine's number with the interval its verdict states beside it (the run's JSON summary)
      const said = ((await (await fetch(`${base}api/runs/${id}`)).json()).summary || {})[lesson.answer] || {};
      const ci = typeof said.lo === 'number' && typeof said.hi === 'number';
      check(ci === /\(\S+–\S+\)/.test(values[1]), `this machine's answer carries the summary's interval where it has one (${values[1]}; lo ${said.lo}, hi ${said.hi})`);
    }
    check(await inView(page, '#lesson-result'), `the answer is on screen at ${w}x${hgt}`);
    const hpx = await page.evaluate(() => parseFloat(getComputedStyle(document.getElementById('headline')).fontSize));
    check(hpx >= 24, `the verdict is in projector type (${hpx} px)`);
    check(await page.getAttribute('#results figure.chart.classroom-current', 'data-chart') === lesson.chart, `the run opens on the chart that answers the lesson (${lesson.chart})`);
    const fit = await chartFits(page);
    check(fit.ok, `the whole chart, its axis and its legend are on screen at ${w}x${hgt} (${fit.why})`);
    check(await inView(page, '#headline'), 'the verdict is on screen');
    await page.screenshot({ path: join(SHOTS, `classroom-answer-${w}x${hgt}.png`) });
    if (w === 1280) await axeCheck(page, 'classroom after the run', check);

    // a question this machine cannot answer says so, next to the guess
    if (w === 1280) {
      const cs = schema.find((e) => e.name === 'cache_sharing');
      await page.goto(`${base}?classroom#/experiments/cache_sharing`);
      await page.waitForSelector('#lesson-pick option', { state: 'attached' });
      await page.fill('#lesson-guess', '3');
      await page.press('#lesson-guess', 'Enter'); // the guess written, Enter runs
      await page.waitForFunction(() => /^#\/runs\/\d+$/.test(location.hash), null, { timeout: 20000 });
      await page.waitForSelector('#status[data-status="done"]', { timeout: 90000 });
      await page.waitForSelector('#lesson-result:not([hidden])', { timeout: 20000 });
      await page.waitForTimeout(500);
      const csId = (await page.evaluate(() => location.hash)).match(/(\d+)$/)[1];
      const csRun = await (await fetch(`${base}api/runs/${csId}`)).json();
      const answered = Object.keys(csRun.summary || {}).includes(cs.lessons[0].answer);
      const text = await page.textContent('#lesson-result');
      check(answered ? /this machine/.test(text) : /could not measure it/.test(text),
        `the answer says what this machine measured, or that it could not (${answered ? 'measured' : 'not measured'}: "${text.slice(0, 120)}")`);
      await page.screenshot({ path: join(SHOTS, `classroom-unanswered-${w}x${hgt}.png`) });
    }

    // the heatmap: its colour scale above the fold too
    const c2c = schema.find((e) => e.name === 'core_to_core');
    await page.goto(`${base}?classroom#/experiments/core_to_core`);
    await page.waitForSelector('#lesson-pick option', { state: 'attached' });
    await page.click('#run-button');
    await page.waitForFunction(() => /^#\/runs\/\d+$/.test(location.hash), null, { timeout: 20000 });
    await page.waitForSelector('#status[data-status="done"]', { timeout: 90000 });
    await page.waitForTimeout(900);
    // the lesson opens on its own chart; the arrows step to the heatmap
    const heatId = c2c.charts.find((c) => c.kind === 'heatmap').id;
    for (let i = 0; i < 6 && (await page.getAttribute('#results .classroom-current', 'data-chart')) !== heatId; i++) await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(600);
    check(await page.getAttribute('#results .classroom-current', 'data-chart') === heatId, 'the arrows reach the heatmap');
    const heat = await chartFits(page);
    check(heat.ok, `the heatmap and its colour scale are on screen at ${w}x${hgt} (${heat.why})`);
    check(c2c.lessons.length >= 1, 'core_to_core has a lesson');
    await page.screenshot({ path: join(SHOTS, `classroom-heatmap-${w}x${hgt}.png`) });
    // the threads on the machine's picture, for pointing at: the last view, by keyboard
    await page.goto(`${base}#/runs/${id}`);
    await page.waitForSelector('#run-topology svg [data-threads]', { state: 'attached', timeout: 20000 });
    await page.waitForTimeout(500);
    for (let i = 0; i < 6 && !(await page.$('#run-topology.classroom-current')); i++) await page.keyboard.press('ArrowDown');
    await page.waitForSelector('#run-topology.classroom-current', { timeout: 5000 });
    await page.waitForTimeout(300);
    check(/the machine/.test(await page.textContent('#classroom-hint')), 'the hint says the machine is shown');
    check(await inView(page, '#run-topology svg'), `the machine's picture is on screen whole at ${w}x${hgt}`);
    const scale = await page.evaluate(() => {
      const svg = document.querySelector('#run-topology svg');
      const vb = svg.viewBox.baseVal;
      const r = svg.getBoundingClientRect();
      return Math.min(r.width / vb.width, r.height / vb.height);
    });
    check(scale >= 1.2, `the picture is drawn larger than on the laptop's page, to point at (${scale.toFixed(2)}×)`);
    await page.screenshot({ path: join(SHOTS, `topology-threads-${w}x${hgt}.png`) });
    if (w === 1280) await axeCheck(page, 'the topology with a run\'s threads', check);
    await page.context().close();
  }
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} catch (e) {
  check(false, `classroom: ${e.message}`);
} finally {
  await browser.close();
  proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
