"""Query results to text: the terminal table, Markdown, CSV and JSON through jinja templates (render.py,
templates/), the HTML page (html.py) with its Vega-Lite chart (charts.py), and writing a report to a file
atomically (output.py).

May import: tracedb.sql, the ground modules."""
